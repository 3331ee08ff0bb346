import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { AuditWriteError } from '../../../src/audit/errors.js';
import { ConversationStoreError } from '../../../src/brain/conversations/errors.js';
import { sqliteCodeOf } from '../../../src/files/index.js';

describe('sqliteCodeOf', () => {
  test.each([
    [{ code: 'SQLITE_BUSY' }, 'SQLITE_BUSY'],
    [{ code: 'SQLITE_FULL' }, 'SQLITE_FULL'],
    [Object.assign(new Error('x'), { code: 'SQLITE_READONLY_DBMOVED' }), 'SQLITE_READONLY_DBMOVED'],
    [{ code: 'ENOENT' }, undefined],
    [{ code: 5 }, undefined],
    [new Error('no code'), undefined],
    ['SQLITE_BUSY', undefined],
    [null, undefined],
    [undefined, undefined],
  ])('%j has code %s', (err, code) => {
    expect(sqliteCodeOf(err)).toBe(code);
  });

  test('reads the code better-sqlite3 gives a failed statement', () => {
    const db = new Database(':memory:');
    try {
      let caught: unknown;
      try {
        db.exec('INSERT INTO missing VALUES (1)');
      } catch (err) {
        caught = err;
      }
      expect(sqliteCodeOf(caught)).toBe('SQLITE_ERROR');
    } finally {
      db.close();
    }
  });

  test('the audit log and the conversation store read the code the same way', () => {
    const cause = { code: 'SQLITE_BUSY' };
    const audit = new AuditWriteError('write failed', { cause, batchSize: 1 });
    const conv = new ConversationStoreError(
      'conversations_failed',
      '/tmp/x.db',
      { what: 'append', outcome: 'failed', reason: 'database is locked' },
      cause,
    );
    expect([audit.sqliteCode, conv.sqliteCode]).toEqual(['SQLITE_BUSY', 'SQLITE_BUSY']);
    expect([audit.retryable, conv.retryable]).toEqual([true, true]);
  });
});
