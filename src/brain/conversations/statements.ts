import type { Database, Statement } from 'better-sqlite3';
import type { TurnRole } from './types.js';

/** Every statement the store runs, prepared once at open. Times are epoch milliseconds. */

export interface SessionRow {
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
  readonly selectSession: Statement<[string], SessionRow>;
  readonly insertSession: Statement<[string, string, number, number]>;
  /** Deletes the least recently updated sessions until at most `keep` remain. */
  readonly evictOver: Statement<[{ keep: number }]>;
  readonly expireBefore: Statement<[number]>;
  readonly touchSession: Statement<[number, string]>;
  readonly insertTurn: Statement<[string, TurnRole, string, number, string | null]>;
  /** Deletes a session's turns older than its newest `keep`. */
  readonly trimTurns: Statement<[{ session: string; keep: number }]>;
  /** A session's newest `limit` turns, newest first. */
  readonly selectTurns: Statement<[string, number], TurnRow>;
}

export function prepareStatements(db: Database): Statements {
  return {
    selectSession: db.prepare<[string], SessionRow>(
      'SELECT id, actor, created_at, updated_at FROM sessions WHERE id = ?',
    ),
    insertSession: db.prepare<[string, string, number, number]>(
      'INSERT INTO sessions (id, actor, created_at, updated_at) VALUES (?, ?, ?, ?)',
    ),
    evictOver: db.prepare<{ keep: number }>(
      `DELETE FROM sessions WHERE rowid IN (
         SELECT rowid FROM sessions ORDER BY updated_at, rowid
         LIMIT max(0, (SELECT count(*) FROM sessions) - @keep))`,
    ),
    expireBefore: db.prepare<[number]>('DELETE FROM sessions WHERE updated_at < ?'),
    touchSession: db.prepare<[number, string]>('UPDATE sessions SET updated_at = ? WHERE id = ?'),
    insertTurn: db.prepare<[string, TurnRole, string, number, string | null]>(
      'INSERT INTO turns (session_id, role, content, at, tool) VALUES (?, ?, ?, ?, ?)',
    ),
    trimTurns: db.prepare<{ session: string; keep: number }>(
      `DELETE FROM turns WHERE session_id = @session AND seq <= (
         SELECT seq FROM turns WHERE session_id = @session
         ORDER BY seq DESC LIMIT 1 OFFSET @keep)`,
    ),
    selectTurns: db.prepare<[string, number], TurnRow>(
      'SELECT role, content, at, tool FROM turns WHERE session_id = ? ORDER BY seq DESC LIMIT ?',
    ),
  };
}
