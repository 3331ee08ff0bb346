import type { Database, Statement } from 'better-sqlite3';
import type { TurnRole } from './types.js';

/**
 * Every statement the store runs, prepared once at open. Times are epoch milliseconds. A
 * session is found by its owner and its id together (schema v2, ADR 0063); `key` is its row.
 */

export interface SessionRow {
  readonly key: number;
  readonly id: string;
  readonly actor: string;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface TurnRow {
  readonly role: TurnRole;
  readonly content: string;
  readonly at: number;
  readonly tool: string | null;
}

export interface Statements {
  /** The session `id` of `actor`. */
  readonly selectSession: Statement<[string, string], SessionRow>;
  readonly insertSession: Statement<[string, string, number, number]>;
  /** Deletes the least recently updated sessions until at most `keep` remain. */
  readonly evictOver: Statement<[{ keep: number }]>;
  readonly expireBefore: Statement<[number]>;
  /** Sets `updated_at` of the session `id` of `actor`; its key, or nothing when there is none. */
  readonly touchSession: Statement<[number, string, string], { key: number }>;
  readonly insertTurn: Statement<[number, TurnRole, string, number, string | null]>;
  /** Deletes a session's turns older than its newest `keep`. */
  readonly trimTurns: Statement<[{ session: number; keep: number }]>;
  /** A session's newest `limit` turns, newest first. */
  readonly selectTurns: Statement<[number, number], TurnRow>;
  /** Sets `updated_at` of the session `id` of `actor`; its key and when it was created. */
  readonly touchSessionKey: Statement<
    [number, string, string],
    { key: number; created_at: number }
  >;
  /** Marks a job's end as told to a session; no change when it was already. */
  readonly insertJobReport: Statement<[number, string, number]>;
  /** Deletes a session's job marks older than its newest `keep`. */
  readonly trimJobReports: Statement<[{ session: number; keep: number }]>;
}

export function prepareStatements(db: Database): Statements {
  return {
    selectSession: db.prepare<[string, string], SessionRow>(
      'SELECT key, id, actor, created_at, updated_at FROM sessions WHERE actor = ? AND id = ?',
    ),
    insertSession: db.prepare<[string, string, number, number]>(
      'INSERT INTO sessions (actor, id, created_at, updated_at) VALUES (?, ?, ?, ?)',
    ),
    evictOver: db.prepare<{ keep: number }>(
      `DELETE FROM sessions WHERE key IN (
         SELECT key FROM sessions ORDER BY updated_at, key
         LIMIT max(0, (SELECT count(*) FROM sessions) - @keep))`,
    ),
    expireBefore: db.prepare<[number]>('DELETE FROM sessions WHERE updated_at < ?'),
    touchSession: db.prepare<[number, string, string], { key: number }>(
      'UPDATE sessions SET updated_at = ? WHERE actor = ? AND id = ? RETURNING key',
    ),
    insertTurn: db.prepare<[number, TurnRole, string, number, string | null]>(
      'INSERT INTO turns (session, role, content, at, tool) VALUES (?, ?, ?, ?, ?)',
    ),
    trimTurns: db.prepare<{ session: number; keep: number }>(
      `DELETE FROM turns WHERE session = @session AND seq <= (
         SELECT seq FROM turns WHERE session = @session
         ORDER BY seq DESC LIMIT 1 OFFSET @keep)`,
    ),
    selectTurns: db.prepare<[number, number], TurnRow>(
      'SELECT role, content, at, tool FROM turns WHERE session = ? ORDER BY seq DESC LIMIT ?',
    ),
    touchSessionKey: db.prepare<[number, string, string], { key: number; created_at: number }>(
      'UPDATE sessions SET updated_at = ? WHERE actor = ? AND id = ? RETURNING key, created_at',
    ),
    insertJobReport: db.prepare<[number, string, number]>(
      'INSERT OR IGNORE INTO job_reports (session, job_id, at) VALUES (?, ?, ?)',
    ),
    trimJobReports: db.prepare<{ session: number; keep: number }>(
      `DELETE FROM job_reports WHERE session = @session AND rowid IN (
         SELECT rowid FROM job_reports WHERE session = @session
         ORDER BY at DESC, rowid DESC LIMIT -1 OFFSET @keep)`,
    ),
  };
}
