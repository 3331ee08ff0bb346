import type { Database } from 'better-sqlite3';
import { ConversationStoreError } from './errors.js';

/**
 * Versioned migrations, tracked in `PRAGMA user_version`, run when the store opens. A file
 * from a newer CAESAR is refused, never downgraded. `PRAGMA application_id` marks the file as
 * a conversations database, so another SQLite file (the audit log above all, which sits in
 * the same directory) passed by mistake is refused before anything is written to it.
 */

/** 'CSCV' in ASCII: identifies a CAESAR conversations database among SQLite files. */
export const CONVERSATIONS_APPLICATION_ID = 0x43534356;

/** 'CSAR': the audit log's id, named here only to say so when its file is passed by mistake. */
const AUDIT_APPLICATION_ID = 0x43534152;

interface Migration {
  readonly version: number;
  readonly sql: string;
}

/**
 * The turns table of every version, which differ only in the column naming the session (a
 * turn is deleted with its session). The text is the one each version's file was made with.
 */
function turnsTable(name: string, session: string): string {
  return `CREATE TABLE ${name} (
  seq        INTEGER PRIMARY KEY,
  ${session} ON DELETE CASCADE,
  role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  content    TEXT NOT NULL,
  at         INTEGER NOT NULL,
  tool       TEXT CHECK ((role = 'tool') = (tool IS NOT NULL) AND (tool IS NULL OR json_valid(tool)))
) STRICT;`;
}

// Times are epoch milliseconds. `turns.seq` is the rowid: it only grows within a session
// (a new row gets max(rowid) + 1), so it orders a session's turns.
const V1 = `
CREATE TABLE sessions (
  id         TEXT PRIMARY KEY,
  actor      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_updated_at ON sessions (updated_at);

${turnsTable('turns', 'session_id TEXT NOT NULL REFERENCES sessions (id)')}
CREATE INDEX turns_session_seq ON turns (session_id, seq);
`;

// Sessions are per actor (ADR 0063): a session is named by its owner and its id together, so
// two API tokens may use the same name (`kitchen`) for two separate conversations. `key` is
// the old rowid, so `turns.seq` order and eviction order are kept; turns point at `key`.
const V2 = `
CREATE TABLE sessions_v2 (
  key        INTEGER PRIMARY KEY,
  actor      TEXT NOT NULL,
  id         TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (actor, id)
) STRICT;
INSERT INTO sessions_v2 (key, actor, id, created_at, updated_at)
  SELECT rowid, actor, id, created_at, updated_at FROM sessions;

${turnsTable('turns_v2', 'session    INTEGER NOT NULL REFERENCES sessions_v2 (key)')}
INSERT INTO turns_v2 (seq, session, role, content, at, tool)
  SELECT t.seq, s.rowid, t.role, t.content, t.at, t.tool
  FROM turns t JOIN sessions s ON s.id = t.session_id;

DROP TABLE turns;
DROP TABLE sessions;
ALTER TABLE sessions_v2 RENAME TO sessions;
ALTER TABLE turns_v2 RENAME TO turns;
CREATE INDEX sessions_updated_at ON sessions (updated_at);
CREATE INDEX turns_session_seq ON turns (session, seq);
`;

// Jobs a conversation submitted whose end it was told of (ADR 0100): one row per job, so a
// report is given once, whatever the history keeps; deleted with the session.
const V3 = `
CREATE TABLE job_reports (
  session    INTEGER NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,
  job_id     TEXT NOT NULL,
  at         INTEGER NOT NULL,
  PRIMARY KEY (session, job_id)
) STRICT;
`;

const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: V1 },
  { version: 2, sql: V2 },
  { version: 3, sql: V3 },
];

/** The schema version this build writes and reads. */
export const CONVERSATIONS_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

const ELSEWHERE = 'point brain.conversations_file at another file';

function refuse(path: string, problem: string, next = ELSEWHERE): ConversationStoreError {
  return new ConversationStoreError('conversations_schema_unsupported', path, { problem, next });
}

function hasTables(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1").get() !== undefined;
}

/**
 * Throws unless the file is a conversations database this build can use, or empty. The
 * header fields and the table list are read in one transaction: read one by one, another
 * process's migration could commit in between (application_id still 0, tables already
 * there), and a good file was refused as not ours.
 */
export function assertSupportedSchema(db: Database, path: string): number {
  if (db.inTransaction) return checkSchema(db, path);
  return db.transaction(() => checkSchema(db, path))();
}

function checkSchema(db: Database, path: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  const appId = db.pragma('application_id', { simple: true }) as number;
  if (appId === AUDIT_APPLICATION_ID) {
    throw refuse(path, 'is the CAESAR audit log, not a conversations database');
  }
  if (appId !== CONVERSATIONS_APPLICATION_ID && (appId !== 0 || hasTables(db))) {
    const id = `application_id 0x${appId.toString(16).padStart(8, '0')}`;
    throw refuse(path, `is not a CAESAR conversations database (${id})`);
  }
  if (version > CONVERSATIONS_SCHEMA_VERSION) {
    throw refuse(
      path,
      `is a conversations database of schema version ${version}, newer than this CAESAR ` +
        `supports (${CONVERSATIONS_SCHEMA_VERSION})`,
      `upgrade CAESAR or ${ELSEWHERE}`,
    );
  }
  return version;
}

/**
 * Brings the file to the current version, one immediate transaction per migration. The
 * version is read again inside each transaction, so two processes opening a new file at
 * once migrate it exactly once.
 */
export function migrate(db: Database, path: string): { from: number; to: number } {
  const from = assertSupportedSchema(db, path);
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue;
    db.transaction(() => {
      if (assertSupportedSchema(db, path) >= m.version) return;
      db.exec(m.sql);
      db.pragma(`application_id = ${CONVERSATIONS_APPLICATION_ID}`);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return { from, to: CONVERSATIONS_SCHEMA_VERSION };
}
