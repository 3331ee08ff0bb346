import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { waitFor, within } from '../../helpers/wait.js';
import { TimeoutError } from '../../../src/legion/index.js';
import { CalcResultSchema } from '../../../workers/calculator/schema.js';
import { createEvaluator, type Evaluator } from '../../../workers/calculator/evaluator.js';
import { GOOD_CASES, HOSTILE_CASES } from './cases.js';

// Real evaluation threads. They run the compiled eval-thread.js from dist/ (see
// compiledScriptUrl in src/host): `npm test` builds it first.

const misbehaving = new URL('./fixtures/misbehaving-thread.mjs', import.meta.url);
const broken = new URL('./fixtures/broken-thread.mjs', import.meta.url);

describe('evaluator with the calculator thread', () => {
  let evaluator: Evaluator;
  beforeAll(async () => {
    evaluator = await createEvaluator({ maxThreads: 2, warmThreads: 1 });
  });
  afterAll(async () => {
    await evaluator.close();
  });

  test.each(GOOD_CASES)('answers %s', async (expression, expected) => {
    const answer = await evaluator.evaluate(expression);
    expect(CalcResultSchema.parse(answer)).toEqual({ expression, ...expected });
  });

  test.each(HOSTILE_CASES)(
    'refuses $label with invalid_input ($reason) and serves the next call',
    async ({ expression, reason }) => {
      await expect(evaluator.evaluate(expression)).rejects.toMatchObject({
        code: 'invalid_input',
        details: { reason },
      });
      await expect(evaluator.evaluate('1 + 1')).resolves.toMatchObject({ value: 2 });
    },
  );

  test('serves many concurrent calls, more than it has threads', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => evaluator.evaluate(`${i} * 3`)),
    );
    expect(answers.map((a) => a.value)).toEqual(Array.from({ length: 40 }, (_, i) => i * 3));
  });

  test('a call aborted while its thread computes is cut off with timeout, and the next call is served', async () => {
    const controller = new AbortController();
    const call = evaluator.evaluate('sqrt(2)', { signal: controller.signal });
    // The thread cannot have answered yet: its reply needs another turn of the event loop.
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'timeout' });
    await expect(evaluator.evaluate('2^10')).resolves.toMatchObject({ value: 1024 });
  });

  test('a call whose signal has already aborted is answered with timeout at once', async () => {
    await expect(
      evaluator.evaluate('1 + 1', { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: 'timeout' });
  });

  test('an abort reason that is already a coded error is passed through', async () => {
    const reason = new TimeoutError('deadline set by the SDK');
    await expect(evaluator.evaluate('1 + 1', { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
  });
});

describe('evaluator pool size (stand-in thread)', () => {
  test('starts no thread before the first call, and one for calls one at a time', async () => {
    await using evaluator = await createEvaluator({ maxThreads: 2, threadUrl: misbehaving });
    expect(evaluator.threads).toBe(0);
    for (const e of ['a', 'b', 'c']) {
      await expect(evaluator.evaluate(e)).resolves.toMatchObject({ expression: e });
    }
    expect(evaluator.threads).toBe(1);
  });

  test('grows to maxThreads while calls wait, never past it', async () => {
    await using evaluator = await createEvaluator({ maxThreads: 2, threadUrl: misbehaving });
    const spinning = [1, 2, 3].map(() =>
      evaluator.evaluate('spin', { signal: AbortSignal.timeout(1500) }),
    );
    await waitFor(() => evaluator.threads === 2, 'a second thread');
    expect(evaluator.threads).toBe(2);
    await Promise.allSettled(spinning);
    expect(evaluator.threads).toBeLessThanOrEqual(2);
  });

  test('stops a thread idle for idleMs; the next call starts a fresh one', async () => {
    await using evaluator = await createEvaluator({
      maxThreads: 2,
      idleMs: 100,
      threadUrl: misbehaving,
    });
    await evaluator.evaluate('first');
    expect(evaluator.threads).toBe(1);
    await waitFor(() => evaluator.threads === 0, 'the idle thread to stop');
    await expect(evaluator.evaluate('next')).resolves.toMatchObject({ expression: 'next' });
    expect(evaluator.threads).toBe(1);
  });

  test('keeps warmThreads however idle, started before createEvaluator resolves', async () => {
    await using evaluator = await createEvaluator({
      maxThreads: 2,
      warmThreads: 1,
      idleMs: 50,
      threadUrl: misbehaving,
    });
    expect(evaluator.threads).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(evaluator.threads).toBe(1);
  });

  test('a warm thread cut off at its deadline is replaced at once', async () => {
    await using evaluator = await createEvaluator({
      maxThreads: 1,
      warmThreads: 1,
      threadUrl: misbehaving,
    });
    await expect(
      evaluator.evaluate('spin', { signal: AbortSignal.timeout(100) }),
    ).rejects.toMatchObject({ code: 'timeout' });
    expect(evaluator.threads).toBe(1);
  });
});

describe('evaluator pool handling (stand-in thread that misbehaves on request)', () => {
  test('a run-away calculation is cut at the deadline and the pool serves the next call', async () => {
    await using evaluator = await createEvaluator({ maxThreads: 1, threadUrl: misbehaving });
    const started = performance.now();
    await expect(
      evaluator.evaluate('spin', { signal: AbortSignal.timeout(200) }),
    ).rejects.toMatchObject({ code: 'timeout' });
    expect(performance.now() - started).toBeLessThan(5_000);
    await expect(evaluator.evaluate('next')).resolves.toMatchObject({ expression: 'next' });
  });

  test('a run-away calculation without a signal is cut at maxEvalMs', async () => {
    await using evaluator = await createEvaluator({
      maxThreads: 1,
      threadUrl: misbehaving,
      maxEvalMs: 200,
    });
    await expect(evaluator.evaluate('spin')).rejects.toThrow('ran longer than 200 ms');
    await expect(evaluator.evaluate('next')).resolves.toMatchObject({ expression: 'next' });
  });

  test('calls sent to wait behind a run-away calculation are served by a fresh thread when it is cut', async () => {
    await using evaluator = await createEvaluator({
      maxThreads: 1,
      warmThreads: 1,
      threadUrl: misbehaving,
      maxEvalMs: 200,
    });
    // one turn of the event loop: all three go to the one thread together, in this order
    const calls = [evaluator.evaluate('before'), evaluator.evaluate('spin')];
    calls.push(evaluator.evaluate('behind'));
    const [before, spin, behind] = await Promise.allSettled(calls);
    expect(before).toMatchObject({ status: 'fulfilled', value: { expression: 'before' } });
    expect(spin).toMatchObject({ status: 'rejected', reason: { code: 'timeout' } });
    expect(behind).toMatchObject({ status: 'fulfilled', value: { expression: 'behind' } });
  });

  test('nothing more is sent to a thread stuck in a slow calculation: a second thread serves it', async () => {
    await using evaluator = await createEvaluator({
      maxThreads: 2,
      warmThreads: 1,
      threadUrl: misbehaving,
    });
    const stuck = new AbortController();
    const spinning = evaluator.evaluate('spin', { signal: stuck.signal });
    // past the 10 ms after which a running calculation counts as slow
    await new Promise((r) => setTimeout(r, 50));
    await expect(evaluator.evaluate('next')).resolves.toMatchObject({ expression: 'next' });
    expect(evaluator.threads).toBe(2);
    stuck.abort();
    await expect(spinning).rejects.toMatchObject({ code: 'timeout' });
  });

  test('a call after an answer the thread has not yet marked idle is still sent to it', async () => {
    await using evaluator = await createEvaluator({ maxThreads: 1, threadUrl: misbehaving });
    await expect(evaluator.evaluate('late-idle')).resolves.toMatchObject({ value: 0 });
    // the thread still names the answered calculation as running, past the 10 ms after which
    // a running one counts as slow; with no other event to come, the next call must not wait
    await new Promise((r) => setTimeout(r, 50));
    await expect(within(evaluator.evaluate('next'), 'the next call', 5_000)).resolves.toMatchObject(
      { expression: 'next' },
    );
  });

  test('a queued call aborted before it runs is answered while the running one continues', async () => {
    await using evaluator = await createEvaluator({ maxThreads: 1, threadUrl: misbehaving });
    const running = new AbortController();
    const queued = new AbortController();
    const first = evaluator.evaluate('spin', { signal: running.signal });
    const second = evaluator.evaluate('waits', { signal: queued.signal });
    queued.abort();
    await expect(second).rejects.toMatchObject({ code: 'timeout' });
    running.abort();
    await expect(first).rejects.toMatchObject({ code: 'timeout' });
    await expect(evaluator.evaluate('next')).resolves.toMatchObject({ expression: 'next' });
  });

  test('a thread that runs out of memory answers invalid_input and is replaced', async () => {
    await using evaluator = await createEvaluator({
      maxThreads: 1,
      threadUrl: misbehaving,
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    await expect(evaluator.evaluate('oom')).rejects.toMatchObject({
      code: 'invalid_input',
      message: "the expression exceeds the calculator's resource limits",
    });
    await expect(evaluator.evaluate('next')).resolves.toMatchObject({ expression: 'next' });
  });

  test.each(['exit', 'throw'])(
    'a thread that dies (%s) answers internal and is replaced',
    async (expression) => {
      await using evaluator = await createEvaluator({ maxThreads: 1, threadUrl: misbehaving });
      await expect(evaluator.evaluate(expression)).rejects.toMatchObject({ code: 'internal' });
      await expect(evaluator.evaluate('next')).resolves.toMatchObject({ expression: 'next' });
    },
  );

  test('close answers calls still running or waiting, and refuses new ones', async () => {
    const evaluator = await createEvaluator({ maxThreads: 1, threadUrl: misbehaving });
    const outcomes = Promise.allSettled([evaluator.evaluate('spin'), evaluator.evaluate('waits')]);
    await evaluator.close();
    const shuttingDown = {
      code: 'internal',
      retryable: true,
      message: 'internal error: the calculator is shutting down',
    };
    expect(await outcomes).toEqual([
      { status: 'rejected', reason: expect.objectContaining(shuttingDown) },
      { status: 'rejected', reason: expect.objectContaining(shuttingDown) },
    ]);
    await expect(evaluator.evaluate('1')).rejects.toThrow('shutting down');
  });

  test('a warm thread script that fails to load makes createEvaluator reject', async () => {
    await expect(
      createEvaluator({ maxThreads: 1, warmThreads: 1, threadUrl: broken }),
    ).rejects.toThrow('evaluation thread failed to start: broken thread script');
  });

  test('a thread script that fails to load on demand answers the waiting call with internal', async () => {
    await using evaluator = await createEvaluator({ maxThreads: 2, threadUrl: broken });
    await expect(evaluator.evaluate('1')).rejects.toMatchObject({
      code: 'internal',
      message: 'internal error: the calculator could not start an evaluation thread',
    });
    expect(evaluator.threads).toBe(0);
  });

  test('a missing thread script is reported with the build command', async () => {
    const missing = new URL('./fixtures/no-such-thread.mjs', import.meta.url);
    await expect(createEvaluator({ threadUrl: missing })).rejects.toThrow(
      `${fileURLToPath(missing)} is missing: run \`npm run build\``,
    );
  });
});
