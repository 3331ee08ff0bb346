import { writeFileSync, openSync, writeSync, closeSync, statSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { openAuditLog, type AnyAuditEventInput } from '../../../src/audit/index.js';
import { AuditOpenError, AuditWriteError } from '../../../src/audit/errors.js';
import { sql, tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

const noTimer = { retention: { days: 0, intervalMs: 0 } };

function bulky(i: number): AnyAuditEventInput {
  const event = toolCalled(i);
  return {
    ...event,
    payload: { ...event.payload, input: { blob: `${i}`.padEnd(8000, 'x') } },
  } as AnyAuditEventInput;
}

describe('fail closed', () => {
  test('a full disk rejects append with AuditWriteError (SQLITE_FULL); the log stays readable and intact', async () => {
    using dir = tempDir();
    // SQLite's own size cap: the pager refuses new pages exactly as on a full file system.
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      maxDatabaseBytes: 256 * 1024,
      ...noTimer,
    });
    const written: number[] = [];
    let failure: unknown;
    for (let i = 0; i < 200 && failure === undefined; i++) {
      try {
        written.push((await log.append(bulky(i))).seq);
      } catch (err) {
        failure = err;
      }
    }
    expect(failure).toBeInstanceOf(AuditWriteError);
    expect(failure).toMatchObject({
      code: 'audit_write_failed',
      sqliteCode: 'SQLITE_FULL',
      retryable: false,
    });
    expect((failure as Error).cause).toBeDefined();
    expect(written.length).toBeGreaterThan(0);

    // Still failing: no partial state was kept in memory.
    await expect(log.append(bulky(999))).rejects.toBeInstanceOf(AuditWriteError);
    expect(log.head.seq).toBe(written.at(-1));
    expect(log.writerStats().failures).toBeGreaterThanOrEqual(2);

    // Readable, and every durable row is still there and chained.
    expect(log.counts().total).toBe(written.length);
    expect(await log.verify()).toMatchObject({ ok: true, rows: written.length });
  });

  test('after a full disk, appends resume on reopen with room and the chain stays whole', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const small = openAuditLog({ path, maxDatabaseBytes: 128 * 1024, ...noTimer });
    let ok = 0;
    for (let i = 0; i < 100; i++) {
      try {
        await small.append(bulky(i));
        ok++;
      } catch {
        break;
      }
    }
    await small.close();
    await using big = openAuditLog({ path, ...noTimer });
    const next = await big.append(toolCalled(1000));
    expect(next.seq).toBe(ok + 1);
    expect(await big.verify()).toMatchObject({ ok: true, rows: ok + 1 });
  });

  test('a batch that fails rejects every append in it, each with the same typed error', async () => {
    using dir = tempDir();
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      maxDatabaseBytes: 64 * 1024,
      ...noTimer,
    });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => log.append(bulky(i))),
    );
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    for (const r of rejected) expect(r.reason).toBeInstanceOf(AuditWriteError);
    expect(log.counts().total).toBe(results.length - rejected.length);
  });

  test('a database whose write lock another connection holds rejects with a retryable error', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    await using log = openAuditLog({ path, busyTimeoutMs: 50, ...noTimer });
    await log.append(toolCalled(1));
    const { default: Database } = await import('better-sqlite3');
    const other = new Database(path);
    try {
      other.exec('BEGIN IMMEDIATE');
      const err = await log.append(toolCalled(2)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuditWriteError);
      expect(err).toMatchObject({ sqliteCode: 'SQLITE_BUSY', retryable: true });
      other.exec('ROLLBACK');
      await expect(log.append(toolCalled(3))).resolves.toMatchObject({ seq: 2 });
    } finally {
      other.close();
    }
  });

  test('a corrupt database is refused at open with AuditOpenError', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const log = openAuditLog({ path, ...noTimer });
    for (let i = 0; i < 200; i++) await log.append(toolCalled(i));
    await log.close();
    sql(path, 'PRAGMA wal_checkpoint(TRUNCATE);');
    const size = statSync(path).size;
    const fd = openSync(path, 'r+');
    try {
      // Overwrite every page but the first (the header and schema) with garbage.
      writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
    } finally {
      closeSync(fd);
    }
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(AuditOpenError);
  });

  test('a file that is not a SQLite database is refused at open with AuditOpenError', () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    writeFileSync(path, 'this is not a database, just text '.repeat(200));
    expect(() => openAuditLog({ path, ...noTimer })).toThrow(AuditOpenError);
  });
});
