import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { compilePolicy } from './compile.js';
import type { CompiledPolicy } from './compiled.js';
import { PolicyReadError, PolicyTooLargeError } from './errors.js';

/** `policy.max_file_bytes` when not configured: 512 KiB: 2,500 to 4,500 rules of four lines. */
export const DEFAULT_POLICY_MAX_BYTES = 524_288;

export interface ReadPolicyOptions {
  /** Refuse a file larger than this, before reading it. @default DEFAULT_POLICY_MAX_BYTES */
  maxBytes?: number;
}

/** A file's text and the SHA-256 of its exact bytes. */
interface PolicyText {
  readonly text: string;
  readonly sha256: string;
}

/**
 * Reads a policy file as UTF-8. Throws PolicyTooLargeError when it is over `maxBytes` (checked
 * on the open file before reading, and again on what was read, should it grow meanwhile), and
 * PolicyReadError when it is missing, unreadable or not UTF-8.
 */
export async function readPolicyText(
  path: string,
  options: ReadPolicyOptions = {},
): Promise<PolicyText> {
  const maxBytes = options.maxBytes ?? DEFAULT_POLICY_MAX_BYTES;
  const bytes = await readBounded(path, maxBytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), sha256 };
  } catch (err) {
    throw new PolicyReadError(path, err);
  }
}

/**
 * SHA-256 of the file's bytes, as `readPolicyText` computes it (bytes that are not UTF-8 hash
 * too). Throws PolicyReadError or PolicyTooLargeError as it does.
 */
export async function hashPolicyFile(
  path: string,
  options: ReadPolicyOptions = {},
): Promise<string> {
  const bytes = await readBounded(path, options.maxBytes ?? DEFAULT_POLICY_MAX_BYTES);
  return createHash('sha256').update(bytes).digest('hex');
}

/** At most `maxBytes` of the file; a byte more proves it too large. */
async function readBounded(path: string, maxBytes: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw new PolicyReadError(path, err);
  }
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new PolicyTooLargeError(path, size, maxBytes);
    // room for what stat saw plus one byte; grown (up to the bound) if the file grows meanwhile
    let buffer = Buffer.alloc(size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw new PolicyTooLargeError(path, length, maxBytes);
        const grown = Buffer.alloc(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) return buffer.subarray(0, length);
      length += bytesRead;
    }
  } catch (err) {
    if (err instanceof PolicyTooLargeError) throw err;
    throw new PolicyReadError(path, err);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Reads and compiles a policy file. Throws PolicyReadError, PolicyTooLargeError or
 * PolicyLoadError; never returns a partly loaded policy.
 */
export async function loadPolicyFile(
  path: string,
  options: ReadPolicyOptions = {},
): Promise<CompiledPolicy> {
  const { text, sha256 } = await readPolicyText(path, options);
  return compilePolicy(text, { file: path, sha256 });
}
