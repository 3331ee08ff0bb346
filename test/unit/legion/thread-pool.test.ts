import { describe, expect, test } from 'vitest';
import {
  CaesarError,
  compiledScriptUrl,
  createThreadPool,
  DEADLINE_RESERVE_MS,
  TimeoutError,
  type ThreadPoolOptions,
} from '../../../src/legion/index.js';
import type { FixtureTask } from '../../fixtures/thread-task.js';
import { waitFor } from '../../helpers/wait.js';

// Real worker threads running test/fixtures/thread-task.ts, compiled: `npm run build` first
// (npm test does it).
const script = compiledScriptUrl(import.meta.url, '../../fixtures/thread-task.js');

const pool = (options: Partial<ThreadPoolOptions> = {}) =>
  createThreadPool<FixtureTask, unknown>({ script, name: 'test step', ...options });

/** The far future: a deadline that never lowers the time bound. */
const LATER = () => Date.now() + 600_000;

describe('thread pool', () => {
  test('answers from the step and reuses its warm thread', async () => {
    await using p = await pool({ warmThreads: 1 });
    expect(p.threads).toBe(1);
    const first = await p.run({ op: 'thread' });
    await expect(p.run({ op: 'echo', value: { a: [1, 'two'] } })).resolves.toEqual({
      a: [1, 'two'],
    });
    await expect(p.run({ op: 'thread' })).resolves.toBe(first);
    expect(p.started).toBe(1);
  });

  test('a task past its time bound is cut off with backend_error naming it; a fresh thread serves the next', async () => {
    await using p = await pool({ warmThreads: 1, maxRunMs: 300 });
    const started = performance.now();
    const err = await p.run({ op: 'spin' }, { deadline: LATER() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CaesarError);
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect((err as Error).message).toBe(
      'the backend failed: test step ran past its time bound of 300 ms; its thread was stopped',
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    await expect(p.run({ op: 'echo', value: 7 })).resolves.toBe(7);
    expect(p.started).toBe(2);
    expect(p.threads).toBe(1);
  });

  test('the time bound ends before the deadline, so the bound answers, not the deadline', async () => {
    await using p = await pool({ warmThreads: 1, maxRunMs: 60_000 });
    const deadline = Date.now() + DEADLINE_RESERVE_MS + 700;
    const err = await p.run({ op: 'spin' }, { deadline }).catch((e: unknown) => e as Error);
    expect(Date.now()).toBeLessThan(deadline);
    expect(err).toMatchObject({ code: 'backend_error' });
    const bound = Number(/time bound of (\d+) ms/.exec((err as Error).message)?.[1]);
    expect(bound).toBeGreaterThan(0);
    expect(bound).toBeLessThanOrEqual(700);
  });

  test('a task with no time left before its deadline is a timeout, and runs nothing', async () => {
    await using p = await pool({ warmThreads: 1 });
    const deadline = Date.now() + DEADLINE_RESERVE_MS / 2;
    await expect(p.run({ op: 'spin' }, { deadline })).rejects.toBeInstanceOf(TimeoutError);
    await expect(p.run({ op: 'echo', value: 'ok' })).resolves.toBe('ok');
    expect(p.started).toBe(1);
  });

  test('a task that outgrows the heap bound ends its thread with backend_error naming it', async () => {
    await using p = await pool({ warmThreads: 1, maxHeapMb: 32, maxRunMs: 60_000 });
    const err = await p.run({ op: 'grow' }, { deadline: LATER() }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'backend_error',
      retryable: false,
      message:
        'the backend failed: test step ran out of its heap bound of 32 MB; its thread was stopped',
    });
    await expect(p.run({ op: 'echo', value: 1 })).resolves.toBe(1);
    expect(p.started).toBe(2);
  });

  test("an aborted call stops its thread at once and rejects with the call's reason", async () => {
    await using p = await pool({ warmThreads: 1, maxRunMs: 60_000 });
    const controller = new AbortController();
    const reason = new TimeoutError('deadline of 10 ms passed');
    const running = p.run({ op: 'spin' }, { signal: controller.signal });
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    await expect(p.run({ op: 'echo', value: 2 })).resolves.toBe(2);
    expect(p.started).toBe(2);
    expect(p.threads).toBe(1);
  });

  test('a call aborted while it waits for a thread leaves the queue; the others run', async () => {
    await using p = await pool({ maxThreads: 1, maxRunMs: 60_000 });
    const controller = new AbortController();
    const first = p.run({ op: 'echo', value: 'first' });
    const waiting = p.run({ op: 'echo', value: 'never' }, { signal: controller.signal });
    const third = p.run({ op: 'echo', value: 'third' });
    controller.abort(new TimeoutError('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    await expect(Promise.all([first, third])).resolves.toEqual(['first', 'third']);
    expect(p.started).toBe(1);
  });

  test("the step's own coded error keeps its code; another throw is internal; the thread stays", async () => {
    await using p = await pool({ warmThreads: 1 });
    await expect(p.run({ op: 'refuse' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'the input is refused',
      details: [{ path: 'x' }],
    });
    await expect(p.run({ op: 'throw' })).rejects.toMatchObject({
      code: 'internal',
      message: 'internal error: test step failed: a bug in the step',
    });
    expect(p.started).toBe(1);
  });

  test('a thread that exits is answered internal and replaced', async () => {
    await using p = await pool({ warmThreads: 1 });
    await expect(p.run({ op: 'exit' })).rejects.toMatchObject({
      code: 'internal',
      message: 'internal error: test step thread ended: exit code 3',
    });
    await expect(p.run({ op: 'echo', value: 3 })).resolves.toBe(3);
    expect(p.started).toBe(2);
  });

  test('more tasks than threads wait their turn on the threads there are', async () => {
    await using p = await pool({ maxThreads: 2 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => p.run({ op: 'echo', value: i })),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(p.started).toBeLessThanOrEqual(2);
  });

  test('an idle thread beyond the warm ones is retired', async () => {
    await using p = await pool({ idleMs: 20 });
    expect(p.threads).toBe(0);
    await p.run({ op: 'echo', value: 0 });
    await waitFor(() => p.threads === 0, 'the idle thread to be retired');
  });

  test('close rejects waiting and running tasks, and later runs', async () => {
    const p = await pool({ maxThreads: 1, maxRunMs: 60_000 });
    const outcomes = Promise.allSettled([p.run({ op: 'spin' }), p.run({ op: 'echo', value: 1 })]);
    await p.close();
    const shuttingDown = {
      code: 'internal',
      retryable: true,
      message: 'internal error: test step is shutting down',
    };
    expect(await outcomes).toMatchObject([
      { status: 'rejected', reason: shuttingDown },
      { status: 'rejected', reason: shuttingDown },
    ]);
    await expect(p.run({ op: 'echo', value: 1 })).rejects.toThrow('test step is shutting down');
    expect(p.threads).toBe(0);
  });

  test('a script that does not exist fails at creation, naming the build', async () => {
    await expect(
      createThreadPool({ script: new URL('./no-such-thread.js', script), name: 'x' }),
    ).rejects.toThrow(/no-such-thread\.js is missing: run `npm run build`/);
  });
});
