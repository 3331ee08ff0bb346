import { setImmediate as nextTurn } from 'node:timers/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { describe, expect, test } from 'vitest';
import { openAuditLog } from '../../../src/audit/index.js';
import { AuditWriteError } from '../../../src/audit/errors.js';
import { tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

/**
 * The writer thread (ADR 0020, addendum): commits and their fsyncs run off the caller's
 * event loop, and a thread that dies fails closed. `commitDelayMs` makes every transaction
 * block its thread as a slow disk's fsync would.
 */

const noTimer = { retention: { days: 0, intervalMs: 0 } };

describe('the audit writer thread', () => {
  test('a slow commit does not stall the event loop: turns keep running while an append waits', async () => {
    using dir = tempDir();
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      commitDelayMs: 2_000,
      ...noTimer,
    });
    await log.ready();
    let durable = false;
    const append = log.append(toolCalled(1)).finally(() => (durable = true));
    let turns = 0;
    while (!durable) {
      await nextTurn();
      await sleep(1);
      turns++;
    }
    // on the event loop (the design before this thread) not one turn could run during the
    // commit; here even a loaded machine runs dozens in two seconds
    expect(turns).toBeGreaterThanOrEqual(5);
    expect((await append).seq).toBe(1);
    expect(log.head.seq).toBe(1);
  });

  test('appends that arrive during a commit join the next transaction', async () => {
    using dir = tempDir();
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      commitDelayMs: 1_000,
      ...noTimer,
    });
    await log.ready();
    const first = log.append(toolCalled(0));
    await nextTurn(); // posted: the thread is now inside its slow transaction
    const rest = [];
    for (let i = 1; i <= 30; i++) {
      rest.push(log.append(toolCalled(i)));
      await nextTurn(); // one message per turn, each posted while the thread is busy
    }
    await Promise.all([first, ...rest]);
    const stats = log.writerStats();
    expect(stats.rows).toBe(31);
    expect(stats.batches).toBeLessThan(31);
    expect(await log.verify()).toMatchObject({ ok: true, rows: 31 });
  });

  test('a thread that dies fails its unanswered appends closed; a new one resumes the chain', async () => {
    using dir = tempDir();
    const threads: Worker[] = [];
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      commitDelayMs: 2_000,
      onWriterThread: (t) => threads.push(t),
      ...noTimer,
    });
    await log.ready();
    expect((await log.append(toolCalled(1))).seq).toBe(1);
    const inFlight = log.append(toolCalled(2));
    await nextTurn(); // posted; the thread is inside the transaction
    await threads[0]!.terminate();
    const err: unknown = await inFlight.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuditWriteError);
    expect((err as Error).message).toMatch(/the audit writer thread stopped/);
    // right after a death the log refuses at once rather than restarting in a loop
    await expect(log.append(toolCalled(3))).rejects.toBeInstanceOf(AuditWriteError);
    await sleep(1_100);
    const next = await log.append(toolCalled(4));
    expect(threads).toHaveLength(2);
    // the killed transaction never committed, so the chain goes on from seq 1
    expect(next.seq).toBe(2);
    expect(log.head).toEqual({ seq: 2, hash: next.hash });
    expect(await log.verify()).toMatchObject({ ok: true, rows: 2 });
    expect(log.writerStats().failures).toBe(2);
  });

  test('an idle writer does not keep the process alive; close ends its thread', async () => {
    using dir = tempDir();
    const threads: Worker[] = [];
    const log = openAuditLog({
      path: dir.file('audit.db'),
      onWriterThread: (t) => threads.push(t),
      ...noTimer,
    });
    await log.append(toolCalled(1));
    const exited = new Promise<number>((resolve) => threads[0]!.once('exit', resolve));
    await log.close();
    expect(await exited).toBe(0);
  });
  test('the rows of one turn reach the thread in chunks and commit as one transaction', async () => {
    using dir = tempDir();
    await using log = openAuditLog({ path: dir.file('audit.db'), ...noTimer });
    await log.ready();
    const turn = Array.from({ length: 100 }, (_, i) => log.append(toolCalled(i)));
    const appended = await Promise.all(turn);
    expect(appended.map((a) => a.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(log.writerStats()).toMatchObject({ rows: 100, batches: 1, maxBatch: 100 });
    expect(await log.verify()).toMatchObject({ ok: true, rows: 100 });
  });

  test('maxBatch cuts a long turn into several transactions, in order', async () => {
    using dir = tempDir();
    await using log = openAuditLog({ path: dir.file('audit.db'), maxBatch: 40, ...noTimer });
    await log.ready();
    const appended = await Promise.all(
      Array.from({ length: 100 }, (_, i) => log.append(toolCalled(i))),
    );
    expect(appended.map((a) => a.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(log.writerStats()).toMatchObject({ rows: 100, batches: 3, maxBatch: 40 });
    expect(await log.verify()).toMatchObject({ ok: true, rows: 100 });
  });

  test("a sweep asked in the middle of a turn runs between that turn's rows, not inside them", async () => {
    using dir = tempDir();
    await using log = openAuditLog({ path: dir.file('audit.db'), ...noTimer });
    await log.ready();
    const before = Array.from({ length: 40 }, (_, i) => log.append(toolCalled(i)));
    const swept = log.sweepRetention();
    const after = Array.from({ length: 10 }, (_, i) => log.append(toolCalled(40 + i)));
    const seqs = (await Promise.all([...before, ...after])).map((a) => a.seq);
    await swept;
    expect(seqs.slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // the rows after the sweep come after whatever the sweep wrote, in order
    expect(seqs[40]).toBeGreaterThan(40);
    expect(seqs.slice(40)).toEqual(Array.from({ length: 10 }, (_, i) => seqs[40]! + i));
    expect(await log.verify()).toMatchObject({ ok: true });
  });

  test('a thread that dies while a turn is still sending fails every row of that turn', async () => {
    using dir = tempDir();
    const threads: Worker[] = [];
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      onWriterThread: (t) => threads.push(t),
      ...noTimer,
    });
    await log.ready();
    expect((await log.append(toolCalled(0))).seq).toBe(1);
    // more than one chunk in one turn, and the thread terminated before the turn ends
    const turn = Array.from({ length: 40 }, (_, i) => log.append(toolCalled(1 + i)));
    const killed = threads[0]!.terminate();
    const outcomes = await Promise.allSettled(turn);
    await killed;
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(
      outcomes.every((o) => o.status === 'rejected' && o.reason instanceof AuditWriteError),
    ).toBe(true);
    await sleep(1_100);
    const next = await log.append(toolCalled(99));
    expect(next.seq).toBe(2);
    expect(await log.verify()).toMatchObject({ ok: true, rows: 2 });
  });
});
