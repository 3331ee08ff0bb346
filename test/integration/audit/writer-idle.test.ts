import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { describe, expect, test } from 'vitest';
import { openAuditLog, type AppendResult } from '../../../src/audit/index.js';
import type { ToWriter } from '../../../src/audit/writer-messages.js';
import { tempDir, toolCalled } from '../../helpers/audit-fixtures.js';

/**
 * The writer thread stops once nothing has been in flight for `writerIdleMs` (it is ~8 MiB
 * of an idle brain), and the next append starts another. Every wait here is on an event
 * (a thread's exit, a message it was sent); the idle times are short so the tests are
 * quick, and nothing depends on how long a loaded machine takes.
 */

const noTimer = { retention: { days: 0, intervalMs: 0 } };

/** Resolves when the thread exits. */
function exited(thread: Worker): Promise<unknown> {
  return once(thread, 'exit');
}

/**
 * The writer threads a log starts, each with its exit promise made the moment it starts: an
 * idle thread may be gone before the test's next await returns (a loaded machine), and a
 * listener attached after its exit would wait forever.
 */
function threadBook() {
  const threads: Worker[] = [];
  const exits: Promise<unknown>[] = [];
  return {
    threads,
    exits,
    onWriterThread: (t: Worker) => {
      threads.push(t);
      exits.push(exited(t));
    },
  };
}

/** Calls `then` the moment the client posts `type` to `thread`, before the thread sees it. */
function onPosted(thread: Worker, type: ToWriter['type'], then: () => void): void {
  const post = thread.postMessage.bind(thread);
  thread.postMessage = (msg: ToWriter) => {
    post(msg);
    if (msg.type === type) then();
  };
}

describe('the audit writer thread when idle', () => {
  test('stops after writerIdleMs, and the next append starts a thread that continues the chain', async () => {
    using dir = tempDir();
    const { threads, exits, onWriterThread } = threadBook();
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      writerIdleMs: 50,
      onWriterThread,
      ...noTimer,
    });
    await log.ready();
    const first = await log.append(toolCalled(1));
    expect(await exits[0]).toEqual([0]);
    expect(log.writerStats().pending).toBe(0);

    const second = await log.append(toolCalled(2));
    expect(threads).toHaveLength(2);
    expect(second.seq).toBe(first.seq + 1);
    expect(log.head).toEqual({ seq: second.seq, hash: second.hash });
    // a stop is not a failure: nothing was rejected, and the restart had no pause
    expect(log.writerStats().failures).toBe(0);
    expect(await log.verify()).toMatchObject({ ok: true, rows: 2 });
  });

  test('a thread with a commit in flight is not stopped: the row is answered first', async () => {
    using dir = tempDir();
    const threads: Worker[] = [];
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      writerIdleMs: 10,
      commitDelayMs: 500, // the commit outlasts the idle time many times over
      onWriterThread: (t) => threads.push(t),
      ...noTimer,
    });
    await log.ready();
    const events: string[] = [];
    const gone = exited(threads[0]!).then(() => events.push('exit'));
    const appended = await log.append(toolCalled(1)).then((a) => {
      events.push('committed');
      return a;
    });
    await gone;
    expect(events).toEqual(['committed', 'exit']);
    expect(appended.seq).toBe(1);
    expect(threads).toHaveLength(1);
  });

  test('an append made while the idle thread is closing is committed by the next thread', async () => {
    using dir = tempDir();
    const threads: Worker[] = [];
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      writerIdleMs: 20,
      onWriterThread: (t) => threads.push(t),
      ...noTimer,
    });
    await log.ready();
    await log.append(toolCalled(1));
    const old = threads[0]!;
    const oldExited = exited(old);
    // appended in the same turn as the stop, before the old thread has even read `close`
    const second = await new Promise<AppendResult>((resolve) => {
      onPosted(old, 'close', () => resolve(log.append(toolCalled(2))));
    });
    await oldExited;
    expect(threads).toHaveLength(2);
    expect(second.seq).toBe(2);
    // the old thread's last words (its tip at close) did not move the head back
    expect(log.head.seq).toBe(2);
    expect(await log.verify()).toMatchObject({ ok: true, rows: 2 });
  });

  test('close while the idle thread is stopping waits for it to exit', async () => {
    using dir = tempDir();
    const threads: Worker[] = [];
    const log = openAuditLog({
      path: dir.file('audit.db'),
      writerIdleMs: 20,
      onWriterThread: (t) => threads.push(t),
      ...noTimer,
    });
    await log.ready();
    await log.append(toolCalled(1));
    const events: string[] = [];
    void exited(threads[0]!).then(() => events.push('exit'));
    // closed in the same turn as the stop, before the old thread has even read `close`
    await new Promise<void>((resolve) => {
      onPosted(threads[0]!, 'close', () => resolve(log.close()));
    });
    events.push('closed');
    expect(events).toEqual(['exit', 'closed']);
    expect(threads).toHaveLength(1);
  });

  test('a sweep after a stop starts a thread too', async () => {
    using dir = tempDir();
    const { threads, exits, onWriterThread } = threadBook();
    await using log = openAuditLog({
      path: dir.file('audit.db'),
      writerIdleMs: 20,
      onWriterThread,
      retention: { days: 30, intervalMs: 0 },
    });
    await log.ready();
    await exits[0];
    const result = await log.sweepRetention();
    expect(result.deleted).toBe(0);
    expect(threads).toHaveLength(2);
  });

  test('writerIdleMs 0 keeps the thread while another log with an idle time stops its own', async () => {
    using dir = tempDir();
    const kept: Worker[] = [];
    await using keep = openAuditLog({
      path: dir.file('keep.db'),
      writerIdleMs: 0,
      onWriterThread: (t) => kept.push(t),
      ...noTimer,
    });
    const stopped = threadBook();
    await using stop = openAuditLog({
      path: dir.file('stop.db'),
      writerIdleMs: 20,
      onWriterThread: stopped.onWriterThread,
      ...noTimer,
    });
    let keptExited = false;
    void exited(kept[0]!).then(() => (keptExited = true));
    await Promise.all([keep.append(toolCalled(1)), stop.append(toolCalled(1))]);
    // the second log's thread went quiet after the first's and has had its idle time
    await stopped.exits[0];
    expect(keptExited).toBe(false);
    expect((await keep.append(toolCalled(2))).seq).toBe(2);
    expect(kept).toHaveLength(1);
  });
});
