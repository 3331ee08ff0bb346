import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { waitAtMost } from '../../../src/clock/index.js';

// The one bounded wait of stopping code (issue 30): it must leave no timer behind, or the
// process it ran in stays open until that timer fires (a brain with JetStream exited 3.5 s
// after its last stop step).

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('waitAtMost', () => {
  test('a promise that settles in time: true, and no timer is left', async () => {
    expect(await waitAtMost(Promise.resolve('done'), 60_000)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a rejection in time ends the wait too, without rejecting', async () => {
    expect(await waitAtMost(Promise.reject(new Error('closed')), 60_000)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a promise that outlasts the bound: false once the time is up, and not before', async () => {
    let settled: boolean | undefined;
    const never = new Promise<void>(() => {});
    const waiting = waitAtMost(never, 1_000).then((r) => (settled = r));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(settled).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a rejection after the bound is handled, not reported as unhandled', async () => {
    let fail: (err: Error) => void = () => {};
    const late = new Promise<void>((_, reject) => (fail = reject));
    const waiting = waitAtMost(late, 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(await waiting).toBe(false);
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      fail(new Error('too late'));
      // Node reports an unhandled rejection once the microtasks of the turn have run
      vi.useRealTimers();
      await new Promise((r) => setImmediate(r));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
