import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** A secret file may hold at most this many bytes (64 KiB): keys, tokens, passwords. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

type SecretFileRead = { readonly value: string } | { readonly problem: string };

/**
 * Reads a secret from `file` (an absolute path), for `CAESAR_<KEY>_FILE` vars: UTF-8, one
 * trailing line ending stripped. An empty file, one over {@link MAX_SECRET_FILE_BYTES}, a
 * missing, unreadable or non-regular file (a FIFO or a device is never opened for reading
 * in a way that could block) gives a `problem` that names the file and never its content.
 */
export async function readSecretFile(file: string): Promise<SecretFileRead> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it.
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    return { problem: openProblem(file, err) };
  }
  try {
    if (!(await handle.stat()).isFile()) {
      return { problem: `secret file ${file} is not a regular file` };
    }
    return await readBounded(handle, file);
  } catch (err) {
    return { problem: `cannot read secret file ${file} (${errorCode(err)})` };
  } finally {
    await handle.close();
  }
}

/** Reads one byte past the limit, so a file that grew after `stat` is still caught. */
async function readBounded(handle: FileHandle, file: string): Promise<SecretFileRead> {
  const buf = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
  try {
    let length = 0;
    while (length < buf.length) {
      const { bytesRead } = await handle.read(buf, length, buf.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_SECRET_FILE_BYTES) {
      return { problem: `secret file ${file} is larger than ${MAX_SECRET_FILE_BYTES} bytes` };
    }
    const value = stripLineEnding(buf.toString('utf8', 0, length));
    return value === '' ? { problem: `secret file ${file} is empty` } : { value };
  } finally {
    buf.fill(0);
  }
}

/** `"s3cret\n"` -> `"s3cret"`; only one `\n` or `\r\n` goes. */
function stripLineEnding(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

function openProblem(file: string, err: unknown): string {
  const code = errorCode(err);
  if (code === 'ENOENT') return `secret file ${file} does not exist`;
  if (code === 'EACCES' || code === 'EPERM') {
    return `secret file ${file} is not readable (permission denied)`;
  }
  if (code === 'EISDIR') return `secret file ${file} is not a regular file`;
  return `cannot open secret file ${file} (${code})`;
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error';
}
