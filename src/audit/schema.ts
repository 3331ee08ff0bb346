import type { Database } from 'better-sqlite3';
import { AuditSchemaError } from './errors.js';

/**
 * Versioned migrations, tracked in `PRAGMA user_version`. They run automatically when the
 * writer opens the log; a file from a newer CAESAR is refused, never downgraded.
 * `PRAGMA application_id` marks the file as a CAESAR audit log.
 */

/** 'CSAR' in ASCII: identifies a CAESAR audit log among SQLite files. */
export const AUDIT_APPLICATION_ID = 0x43534152;

interface Migration {
  readonly version: number;
  readonly sql: string;
}

const V1 = `
CREATE TABLE audit_events (
  seq         INTEGER PRIMARY KEY,
  ts          TEXT NOT NULL,
  event_type  TEXT NOT NULL,
  decision_id TEXT,
  session_id  TEXT,
  tool        TEXT,
  actor       TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  payload     TEXT NOT NULL,
  prev_hash   TEXT NOT NULL,
  hash        TEXT NOT NULL
) STRICT;
CREATE INDEX audit_events_ts ON audit_events (ts);
CREATE INDEX audit_events_event_type ON audit_events (event_type);
CREATE INDEX audit_events_decision_id ON audit_events (decision_id) WHERE decision_id IS NOT NULL;
CREATE INDEX audit_events_tool ON audit_events (tool) WHERE tool IS NOT NULL;
CREATE INDEX audit_events_session_id ON audit_events (session_id) WHERE session_id IS NOT NULL;

-- Opened (set to 1) only inside the retention sweep's transaction, closed before it commits.
CREATE TABLE audit_guard (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  retention_open INTEGER NOT NULL CHECK (retention_open IN (0, 1))
) STRICT;
INSERT INTO audit_guard (id, retention_open) VALUES (1, 0);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only: rows are never updated');
END;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN (SELECT retention_open FROM audit_guard WHERE id = 1) IS NOT 1
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only: only the retention sweep deletes rows');
END;
`;

/**
 * Version 2 (issue 32, ADR 0096): the principal the caller was judged as. NULL on every row
 * written before it, and a NULL principal is left out of the canonical row, so those rows
 * hash as they did and an older log verifies after the migration.
 */
const V2 = `
ALTER TABLE audit_events ADD COLUMN principal TEXT;
CREATE INDEX audit_events_principal ON audit_events (principal) WHERE principal IS NOT NULL;
`;

const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: V1 },
  { version: 2, sql: V2 },
];

/** The schema version this build writes and reads. */
export const AUDIT_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function schemaVersionOf(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function applicationIdOf(db: Database): number {
  return db.pragma('application_id', { simple: true }) as number;
}

function hasUserTables(db: Database): boolean {
  const row = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1").get();
  return row !== undefined;
}

/** Throws unless the file is an audit log this build understands (or an empty new file). */
export function assertSupportedSchema(db: Database, path: string, allowOlder: boolean): number {
  const version = schemaVersionOf(db);
  const appId = applicationIdOf(db);
  if (version === 0 && appId === 0 && hasUserTables(db)) {
    throw new AuditSchemaError(path, 0, AUDIT_SCHEMA_VERSION, 'is not a CAESAR audit log');
  }
  if (appId !== 0 && appId !== AUDIT_APPLICATION_ID) {
    throw new AuditSchemaError(path, version, AUDIT_SCHEMA_VERSION, 'is not a CAESAR audit log');
  }
  if (version > AUDIT_SCHEMA_VERSION) {
    throw new AuditSchemaError(
      path,
      version,
      AUDIT_SCHEMA_VERSION,
      `is an audit log of schema version ${version}, newer than this CAESAR supports ` +
        `(${AUDIT_SCHEMA_VERSION}); upgrade CAESAR or point --db at another file`,
    );
  }
  if (!allowOlder && version < AUDIT_SCHEMA_VERSION) {
    throw new AuditSchemaError(
      path,
      version,
      AUDIT_SCHEMA_VERSION,
      `is an audit log of schema version ${version}; open it once with the brain ` +
        `(or any writer) to migrate it to version ${AUDIT_SCHEMA_VERSION}`,
    );
  }
  return version;
}

/** Brings the file to the current version, one transaction per migration. */
export function migrate(db: Database, path: string): { from: number; to: number } {
  const from = assertSupportedSchema(db, path, true);
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`application_id = ${AUDIT_APPLICATION_ID}`);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return { from, to: AUDIT_SCHEMA_VERSION };
}
