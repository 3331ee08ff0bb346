import { describe, expect, test } from 'vitest';
import { AuditReader, openAuditLog } from '../../../src/audit/index.js';
import { AUDIT_APPLICATION_ID, AUDIT_SCHEMA_VERSION } from '../../../src/audit/schema.js';
import { AuditNotFoundError, AuditSchemaError } from '../../../src/audit/errors.js';
import { sql, tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

const noTimer = { retention: { days: 0, intervalMs: 0 } };

describe('schema and migrations', () => {
  test('a new log gets the current schema, WAL, the indexes and the guards', async () => {
    using dir = tempDir();
    const path = dir.file('nested/dir/audit.db');
    const log = openAuditLog({ path, ...noTimer });
    await log.close();
    expect(sql(path, 'PRAGMA user_version;').trim()).toBe(String(AUDIT_SCHEMA_VERSION));
    expect(sql(path, 'PRAGMA application_id;').trim()).toBe(String(AUDIT_APPLICATION_ID));
    expect(sql(path, 'PRAGMA journal_mode;').trim()).toBe('wal');
    const indexes = sql(path, "SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name;");
    expect(indexes.trim().split('\n')).toEqual([
      'audit_events_decision_id',
      'audit_events_event_type',
      'audit_events_principal',
      'audit_events_session_id',
      'audit_events_tool',
      'audit_events_ts',
    ]);
    const triggers = sql(
      path,
      "SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name;",
    );
    expect(triggers.trim().split('\n')).toEqual([
      'audit_events_no_delete',
      'audit_events_no_update',
    ]);
  });

  test('reopening an up-to-date log runs no migration and keeps the rows', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const a = openAuditLog({ path, ...noTimer });
    await a.append(toolCalled(1));
    await a.close();
    await using b = openAuditLog({ path, ...noTimer });
    expect(b.counts().total).toBe(1);
  });

  test('a log from a newer CAESAR is refused with a clear message, by the writer and the reader', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const log = openAuditLog({ path, ...noTimer });
    await log.close();
    sql(path, `PRAGMA user_version = ${AUDIT_SCHEMA_VERSION + 1};`);
    const message = new RegExp(
      `schema version ${AUDIT_SCHEMA_VERSION + 1}, newer than this CAESAR supports \\(${AUDIT_SCHEMA_VERSION}\\)`,
    );
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(AuditSchemaError);
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(message);
    expect(() => AuditReader.open(path)).toThrow(message);
    expect(sql(path, 'PRAGMA user_version;').trim()).toBe(String(AUDIT_SCHEMA_VERSION + 1));
  });

  test('a SQLite file that is not an audit log is refused, not migrated', () => {
    using dir = tempDir();
    const path = dir.file('other.db');
    sql(path, 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);');
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(/is not a CAESAR audit log/);
    expect(
      sql(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'audit_events';").trim(),
    ).toBe('0');
  });

  test('a reader pointed at a missing file says so and creates nothing', () => {
    using dir = tempDir();
    expect(() => AuditReader.open(dir.file('missing.db'))).toThrow(AuditNotFoundError);
  });
});
