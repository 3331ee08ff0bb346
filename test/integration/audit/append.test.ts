import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { AuditReader, GENESIS_HASH, openAuditLog } from '../../../src/audit/index.js';
import { AuditClosedError, AuditEventError } from '../../../src/audit/errors.js';
import { createLogger } from '../../../src/log/index.js';
import { tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

const noTimer = { retention: { days: 0, intervalMs: 0 } };

describe('append', () => {
  test('resolves with consecutive seqs and a hash chained to the previous row', async () => {
    using dir = tempDir();
    await using log = openAuditLog({ path: dir.file('audit.db'), ...noTimer });
    const a = await log.append(toolCalled(1));
    const b = await log.append(toolCalled(2));
    expect([a.seq, b.seq]).toEqual([1, 2]);
    const [rowB, rowA] = log.query();
    expect(rowA!.prevHash).toBe(GENESIS_HASH);
    expect(rowA!.hash).toBe(a.hash);
    expect(rowB!.prevHash).toBe(a.hash);
    expect(log.head).toEqual({ seq: 2, hash: b.hash });
  });

  test('appends made in the same tick share one transaction, in call order', async () => {
    using dir = tempDir();
    await using log = openAuditLog({ path: dir.file('audit.db'), ...noTimer });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => log.append(toolCalled(i))),
    );
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(log.writerStats()).toMatchObject({ rows: 50, batches: 1, maxBatch: 50 });
    expect((await log.verify()).ok).toBe(true);
  });

  test('a backlog larger than maxBatch is split into several transactions', async () => {
    using dir = tempDir();
    await using log = openAuditLog({ path: dir.file('audit.db'), maxBatch: 16, ...noTimer });
    await Promise.all(Array.from({ length: 40 }, (_, i) => log.append(toolCalled(i))));
    expect(log.writerStats()).toMatchObject({ rows: 40, batches: 3, maxBatch: 16 });
    expect(await log.verify()).toMatchObject({ ok: true, rows: 40 });
  });

  test('a resolved append is on disk: a reader on another connection sees it at once', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    await using log = openAuditLog({ path, ...noTimer });
    const { seq, hash } = await log.append(toolCalled(7));
    using reader = AuditReader.open(path);
    expect(reader.query({ decisionId: 'd-7' })).toMatchObject([{ seq, hash }]);
  });

  test('the chain continues across close and reopen', async () => {
    using dir = tempDir();
    const path = dir.file('audit.db');
    const first = openAuditLog({ path, ...noTimer });
    const a = await first.append(toolCalled(1));
    await first.close();
    await using second = openAuditLog({ path, ...noTimer });
    expect(second.head).toEqual({ seq: 1, hash: a.hash });
    const b = await second.append(toolCalled(2));
    expect(b.seq).toBe(2);
    expect(second.query({ limit: 1 })[0]!.prevHash).toBe(a.hash);
    expect(await second.verify()).toMatchObject({ ok: true, rows: 2 });
  });

  test('close waits for pending appends, then append rejects with AuditClosedError', async () => {
    using dir = tempDir();
    const log = openAuditLog({ path: dir.file('audit.db'), ...noTimer });
    const pending = log.append(toolCalled(1));
    await log.close();
    await expect(pending).resolves.toMatchObject({ seq: 1 });
    await expect(log.append(toolCalled(2))).rejects.toBeInstanceOf(AuditClosedError);
  });

  test('an invalid event is rejected alone and does not fail its batch', async () => {
    using dir = tempDir();
    await using log = openAuditLog({ path: dir.file('audit.db'), ...noTimer });
    const good = log.append(toolCalled(1));
    const bad = log.append({ ...toolCalled(2), type: 'tool.nope' } as never);
    await expect(bad).rejects.toBeInstanceOf(AuditEventError);
    await expect(good).resolves.toMatchObject({ seq: 1 });
  });

  test('ts is ISO-8601 UTC with milliseconds, from the configured clock', async () => {
    using dir = tempDir();
    const clock = () => new Date('2025-06-01T12:00:00.123Z');
    await using log = openAuditLog({ path: dir.file('audit.db'), clock, ...noTimer });
    expect((await log.append(toolCalled(1))).ts).toBe('2025-06-01T12:00:00.123Z');
  });
});

describe('the chain head in the service log', () => {
  /** A logger whose lines resolve `next(msg)` waiters as they are written. */
  function capturingLogger() {
    const lines: Array<{ msg: string; head?: string }> = [];
    const waiters: Array<{ msg: string; resolve: (l: { head?: string }) => void }> = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        const line = JSON.parse(chunk.toString('utf8')) as { msg: string; head?: string };
        lines.push(line);
        for (const w of waiters.splice(0)) {
          if (w.msg === line.msg) w.resolve(line);
          else waiters.push(w);
        }
        cb();
      },
    });
    const next = (msg: string) =>
      new Promise<{ head?: string }>((resolve) => waiters.push({ msg, resolve }));
    return { logger: createLogger({ level: 'info', destination }), lines, next };
  }

  test('logged as SEQ:HASH at open, when it moved on the interval, and at close', async () => {
    using dir = tempDir();
    const { logger, lines, next } = capturingLogger();
    const log = openAuditLog({
      path: dir.file('audit.db'),
      ...noTimer,
      headLogIntervalMs: 20,
      logger,
    });
    expect(lines.find((l) => l.msg === 'audit log open')?.head).toBe(`0:${GENESIS_HASH}`);
    const logged = next('audit head');
    const a = await log.append(toolCalled(1));
    expect((await logged).head).toBe(`1:${a.hash}`);
    const second = next('audit head'); // registered first: the interval may fire at once
    const b = await log.append(toolCalled(2));
    expect((await second).head).toBe(`2:${b.hash}`);
    await log.close();
    expect(lines.at(-1)).toMatchObject({ msg: 'audit log closed', head: `2:${b.hash}` });
    // a new file is writable: its first open complains of nothing (it once said ENOENT)
    const msgs = lines.map((l) => l.msg);
    expect(msgs).not.toContain('audit log not writable');
    expect(msgs).not.toContain('audit log writable again');
    // each head once: nothing is logged while the head stands still
    expect(lines.filter((l) => l.msg === 'audit head').map((l) => l.head)).toEqual([
      `1:${a.hash}`,
      `2:${b.hash}`,
    ]);
  });
});
