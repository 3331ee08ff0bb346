import { access } from 'node:fs/promises';

/** Whether `file` exists (any kind, any mode): one place for the `access` probe. */
export async function fileExists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
