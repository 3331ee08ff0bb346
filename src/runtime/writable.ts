import { closeSync, openSync } from 'node:fs';

/**
 * Can a SQLite database's files really be written (the audit log, conversations)? SQLite opens a file it may not write read-only
 * without a word, and in WAL mode it writes the `-shm` wal-index through a memory map: once
 * the file turns immutable (`chattr +i`) or its mount read-only, a write to a mapped page is
 * SIGBUS, which kills the process instead of failing the statement. So the writer asks the
 * kernel first, the way SQLite itself would: open each file for writing and close it again.
 * `access(W_OK)` would not do: it says yes to root for an immutable file.
 */

/** The database's own files: the main file, its WAL and its wal-index. */
function filesOf(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}

/**
 * Why the SQLite database at `path` cannot be written, or undefined when it can. A missing
 * `-wal` or `-shm` is fine (SQLite creates them); any other failure names the file and the
 * errno (`EPERM` for an immutable file, `EROFS` for a read-only mount, `EACCES`).
 */
export function unwritableReason(path: string): string | undefined {
  for (const file of filesOf(path)) {
    let fd: number;
    try {
      fd = openSync(file, 'r+');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'ENOENT' && file !== path) continue;
      return `${file} is not writable (${code}); make it writable again (chattr -i, remount rw, fix permissions)`;
    }
    closeSync(fd);
  }
  return undefined;
}
