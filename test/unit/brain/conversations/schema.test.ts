import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../../src/audit/index.js';
import {
  CONVERSATIONS_APPLICATION_ID,
  CONVERSATIONS_SCHEMA_VERSION,
} from '../../../../src/brain/conversations/schema.js';
import { ConversationStoreError } from '../../../../src/brain/conversations/errors.js';
import { execSql, openStore, query, scalar, tempDir } from './fixtures.js';

function openError(file: string): ConversationStoreError {
  try {
    openStore(file).close();
  } catch (err) {
    expect(err).toBeInstanceOf(ConversationStoreError);
    return err as ConversationStoreError;
  }
  throw new Error(`opening ${file} did not fail`);
}

describe('opening the file', () => {
  test('a new file in a new directory gets WAL, the application id and the current version', () => {
    using dir = tempDir();
    const file = dir.file('nested/dir/conversations.db');
    openStore(file).close();
    expect(scalar(file, 'PRAGMA journal_mode')).toBe('wal');
    expect(scalar(file, 'PRAGMA application_id')).toBe(CONVERSATIONS_APPLICATION_ID);
    expect(scalar(file, 'PRAGMA user_version')).toBe(CONVERSATIONS_SCHEMA_VERSION);
    expect(
      query(file, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map(
        (r) => r.name,
      ),
    ).toEqual(['job_reports', 'sessions', 'turns']);
  });

  test('a database from a newer CAESAR is refused with a message naming the file, untouched', () => {
    using dir = tempDir();
    const file = dir.file('conversations.db');
    openStore(file).close();
    const newer = CONVERSATIONS_SCHEMA_VERSION + 1;
    query(file, `PRAGMA user_version = ${newer}`, [], true);
    const err = openError(file);
    expect(err.code).toBe('conversations_schema_unsupported');
    expect(err.path).toBe(file);
    expect(err.message).toContain(file);
    expect(err.message).toMatch(
      new RegExp(`schema version ${newer}, newer than this CAESAR supports`),
    );
    expect(scalar(file, 'PRAGMA user_version')).toBe(newer);
  });

  test('the audit log passed by mistake is refused, says what it is, and is left as found', async () => {
    using dir = tempDir();
    const file = dir.file('audit.db');
    const audit = openAuditLog({ path: file, retention: { days: 0, intervalMs: 0 } });
    await audit.close();
    const before = query(file, 'SELECT name FROM sqlite_schema ORDER BY name');
    const err = openError(file);
    expect(err.code).toBe('conversations_schema_unsupported');
    expect(err.message).toBe(
      `${file} is the CAESAR audit log, not a conversations database; ` +
        'point brain.conversations_file at another file',
    );
    expect(query(file, 'SELECT name FROM sqlite_schema ORDER BY name')).toEqual(before);
  });

  test.each([
    ['another application id', 'PRAGMA application_id = 1234;', /application_id 0x000004d2/],
    [
      'no application id but tables',
      'CREATE TABLE notes (body TEXT);',
      /application_id 0x00000000/,
    ],
  ])('a SQLite file with %s is refused, not migrated', (_case, sql, detail) => {
    using dir = tempDir();
    const file = dir.file('other.db');
    execSql(file, sql);
    const before = query(file, 'SELECT name FROM sqlite_schema ORDER BY name');
    const err = openError(file);
    expect(err.code).toBe('conversations_schema_unsupported');
    expect(err.message).toContain(`${file} is not a CAESAR conversations database`);
    expect(err.message).toMatch(detail);
    expect(query(file, 'SELECT name FROM sqlite_schema ORDER BY name')).toEqual(before);
    expect(scalar(file, 'PRAGMA journal_mode')).toBe('delete');
  });

  test('a file that is not SQLite at all fails to open with a message naming it', () => {
    using dir = tempDir();
    const file = dir.file('conversations.db');
    writeFileSync(file, 'this is not a database, just some text that is long enough '.repeat(20));
    const err = openError(file);
    expect(err.code).toBe('conversations_open_failed');
    expect(err.message).toContain(`cannot open conversations database ${file}`);
    expect(err.sqliteCode).toBe('SQLITE_NOTADB');
  });

  test('a directory that cannot be created fails to open with a message naming the file', () => {
    using dir = tempDir();
    const blocker = dir.file('blocker');
    writeFileSync(blocker, '');
    const file = `${blocker}/sub/conversations.db`;
    const err = openError(file);
    expect(err.code).toBe('conversations_open_failed');
    expect(err.message).toContain(file);
  });
});

/** A conversations file as schema version 1 wrote it: sessions named by their id alone. */
const V1_FILE = `
PRAGMA application_id = ${CONVERSATIONS_APPLICATION_ID};
PRAGMA user_version = 1;
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, actor TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_updated_at ON sessions (updated_at);
CREATE TABLE turns (
  seq INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  content TEXT NOT NULL,
  at INTEGER NOT NULL,
  tool TEXT CHECK ((role = 'tool') = (tool IS NOT NULL) AND (tool IS NULL OR json_valid(tool)))
) STRICT;
CREATE INDEX turns_session_seq ON turns (session_id, seq);
INSERT INTO sessions VALUES ('kitchen', 'alice', 1000, 4000), ('s-bob', 'bob', 2000, 3000);
INSERT INTO turns VALUES
  (1, 'kitchen', 'user', 'turn on the light', 1000, NULL),
  (2, 's-bob', 'user', 'hello', 2000, NULL),
  (3, 'kitchen', 'tool', 'light: ok', 3000, '{"name":"light","decision_id":"d","outcome":"ok"}'),
  (4, 'kitchen', 'assistant', 'done', 4000, NULL);
`;

describe('migrating an older file', () => {
  test('a version 1 file keeps every session and turn, in order, under its owner', () => {
    using dir = tempDir();
    const file = dir.file('conversations.db');
    execSql(file, V1_FILE);
    using store = openStore(file);
    expect(scalar(file, 'PRAGMA user_version')).toBe(CONVERSATIONS_SCHEMA_VERSION);
    const kitchen = store.getSession({ actor: 'alice', id: 'kitchen' });
    expect(kitchen).toMatchObject({ id: 'kitchen', actor: 'alice' });
    expect(kitchen?.turns.map((t) => [t.role, t.content])).toEqual([
      ['user', 'turn on the light'],
      ['tool', 'light: ok'],
      ['assistant', 'done'],
    ]);
    expect(kitchen?.turns[1]?.tool).toEqual({ name: 'light', decision_id: 'd', outcome: 'ok' });
    expect(store.history({ actor: 'bob', id: 's-bob' }).map((t) => t.content)).toEqual(['hello']);
    // an old session is its owner's alone, and its name is free for another token
    expect(store.getSession({ actor: 'bob', id: 'kitchen' })).toBeUndefined();
    expect(store.ensureSession('kitchen', 'bob', true)).toEqual({ actor: 'bob', id: 'kitchen' });
    store.appendUser({ actor: 'alice', id: 'kitchen' }, 'and the fan');
    expect(store.history({ actor: 'alice', id: 'kitchen' }).at(-1)?.content).toBe('and the fan');
    expect(query(file, 'PRAGMA foreign_key_check')).toEqual([]);
    expect(query(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  });
});
