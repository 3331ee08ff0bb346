import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { ConversationStoreError } from './errors.js';
import { assertSupportedSchema, migrate } from './schema.js';

/**
 * Opening the database. WAL, so readers never block the writer and several connections
 * (two stores, or the CLI beside the brain) share the file safely. `synchronous = NORMAL`:
 * in WAL mode a commit survives a crash of the process but the last few commits may be lost
 * on power loss, and the file stays consistent either way. Conversation history is a
 * convenience, not the record (the audit log, with `synchronous = FULL`, is), so it does not
 * pay an fsync per message (ADR 0034).
 */

/** How long a write waits for a lock held by another connection. */
const BUSY_TIMEOUT_MS = 5000;

function pragmaOrThrow(db: SqliteDatabase, pragma: string, expected: string): void {
  const got = String(db.pragma(pragma, { simple: true }));
  if (got.toLowerCase() !== expected) {
    throw new Error(`PRAGMA ${pragma} returned ${got}, expected ${expected}`);
  }
}

/** Opens (creating if needed) and migrates the file; refuses a file that is not ours. */
export function openConnection(path: string): SqliteDatabase {
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    // Checked before the first write, so a wrong file is left exactly as it was found.
    assertSupportedSchema(db, path);
    pragmaOrThrow(db, 'journal_mode = WAL', 'wal');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Deleted turns are overwritten where that costs no extra I/O: dropped history should
    // not linger in free pages.
    db.pragma('secure_delete = FAST');
    migrate(db, path);
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof ConversationStoreError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConversationStoreError(
      'conversations_open_failed',
      path,
      { action: 'open', reason },
      err,
    );
  }
}
