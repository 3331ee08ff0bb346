import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { AuditNotFoundError, AuditOpenError, AuditSchemaError } from './errors.js';
import { assertSupportedSchema, migrate } from './schema.js';

/**
 * Opening connections. The writer gets WAL + `synchronous=FULL` (a commit returns only once
 * the WAL is fsynced), a busy timeout, and runs the migrations. Readers open read-only and
 * never migrate.
 */

interface WriterConnectionOptions {
  readonly busyTimeoutMs: number;
  /** Hard cap on the database size, enforced by SQLite (`PRAGMA max_page_count`). */
  readonly maxDatabaseBytes: number | undefined;
}

function pragmaOrThrow(db: SqliteDatabase, pragma: string, expected: string): void {
  const got = String(db.pragma(pragma, { simple: true }));
  if (got.toLowerCase() !== expected) {
    throw new Error(`PRAGMA ${pragma} returned ${got}, expected ${expected}`);
  }
}

/** Opens (creating if needed) and migrates the database the writer appends to. */
export function openWriterConnection(path: string, opts: WriterConnectionOptions): SqliteDatabase {
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path, { timeout: opts.busyTimeoutMs });
    pragmaOrThrow(db, 'journal_mode = WAL', 'wal');
    db.pragma('synchronous = FULL');
    db.pragma('cache_size = -16384');
    migrate(db, path);
    if (opts.maxDatabaseBytes !== undefined) {
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      db.pragma(`max_page_count = ${Math.max(1, Math.floor(opts.maxDatabaseBytes / pageSize))}`);
    }
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof AuditSchemaError) throw err;
    throw new AuditOpenError(path, err instanceof Error ? err.message : String(err), err);
  }
}

/** Opens an existing log read-only, checking it is an audit log of the current schema. */
export function openReaderConnection(path: string): SqliteDatabase {
  if (!existsSync(path)) throw new AuditNotFoundError(path);
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('cache_size = -16384');
    assertSupportedSchema(db, path, false);
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof AuditSchemaError) throw err;
    throw new AuditOpenError(path, err instanceof Error ? err.message : String(err), err);
  }
}
