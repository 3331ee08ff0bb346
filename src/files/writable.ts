import { accessSync, constants } from 'node:fs';

/**
 * Can a SQLite database's files really be written (the audit log, conversations)? SQLite
 * opens a file it may not write read-only without a word, and in WAL mode it reaches the
 * `-shm` wal-index through a memory map: once the file turns immutable (`chattr +i`) or its
 * mount read-only, touching a mapped page for writing is SIGBUS, which kills the process
 * instead of failing the statement. So the stores ask the kernel first.
 *
 * The question is `access(W_OK)`, which fails with EPERM on an immutable file (root included)
 * and EROFS on a read-only mount. Not open-and-close: closing any descriptor of a file drops
 * every POSIX lock this process holds on it, SQLite's included, and two writers then lost a
 * migration and turns (the conversations concurrency test caught it).
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
    try {
      accessSync(file, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'ENOENT' && file !== path) continue;
      return `${file} is not writable (${code}); make it writable again (chattr -i, remount rw, fix permissions)`;
    }
  }
  return undefined;
}
