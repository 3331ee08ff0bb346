/**
 * SQLite's own error code (`SQLITE_BUSY`, `SQLITE_FULL`, `SQLITE_READONLY`, ...) when `err`
 * carries one, as node:sqlite and better-sqlite3 errors do; undefined for any other error.
 * The one reading of a database failure for every SQLite file (audit log, conversations).
 */
export function sqliteCodeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = err.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}
