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
});
