import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConversationStore } from '../../../../src/brain/conversations/index.js';
import type { ConversationStore } from '../../../../src/brain/conversations/store.js';
import type { ConversationStoreOptions } from '../../../../src/brain/conversations/options.js';

/** Helpers of the conversation store tests: temp dirs, a settable clock, raw SQL. */

export interface TempDir extends Disposable {
  readonly path: string;
  file(name: string): string;
}

/** A fresh directory under the OS temp dir, removed on dispose. */
export function tempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'caesar-conv-'));
  return {
    path,
    file: (name) => join(path, name),
    [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** A clock the test moves by hand; starts at 2026-01-01T00:00:00Z. */
export class TestClock {
  ms = Date.parse('2026-01-01T00:00:00.000Z');
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Opens a store on `file` with a small history limit unless told otherwise. */
export function openStore(
  file: string,
  options: Partial<ConversationStoreOptions> = {},
): ConversationStore {
  return openConversationStore({ file, historyLimit: 10, ...options });
}

/** Runs one query on its own connection (read-only unless `write`) and closes it. */
export function query<T = Record<string, unknown>>(
  file: string,
  sql: string,
  params: unknown[] = [],
  write = false,
): T[] {
  const db = new Database(file, { readonly: !write, fileMustExist: true });
  try {
    const stmt = db.prepare(sql);
    if (!stmt.reader) {
      stmt.run(...params);
      return [];
    }
    return stmt.all(...params) as T[];
  } finally {
    db.close();
  }
}

/** A single value: `PRAGMA user_version`, `SELECT count(*) ...`. */
export function scalar(file: string, sql: string, params: unknown[] = []): unknown {
  const row = query(file, sql, params)[0];
  return row === undefined ? undefined : Object.values(row)[0];
}

/** Runs SQL on a file, creating it if missing: for files that are not conversation stores. */
export function execSql(file: string, sql: string): void {
  const db = new Database(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}
