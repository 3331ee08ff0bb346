import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `text` to `file` atomically: a temp file (mode `mode`) in the same directory,
 * fsynced, then renamed over the old one, so a reader sees the old file or the new one, never
 * half of one. Creates the directory when missing; removes the temp file on any failure.
 */
export async function writeFileAtomic(file: string, text: string, mode: number): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await mkdir(dirname(file), { recursive: true });
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
