import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ReadWatch, type WatchedResponse } from '../../../../src/brain/http/read-watch.js';

/**
 * The read watch over a response whose push-back the test sets by hand, on fake timers: what
 * counts as proof of reading, when a backed-up stream is stalled, when a quiet one is unproven.
 */

const STALL = 1000;

class FakeResponse extends EventEmitter implements WatchedResponse {
  writableNeedDrain = false;

  /** The client took what was queued. */
  drain(): void {
    this.writableNeedDrain = false;
    this.emit('drain');
  }
}

interface Watched {
  readonly res: FakeResponse;
  readonly watch: ReadWatch;
  readonly stalled: () => number;
  readonly unproven: () => number;
}

function watch(withUnproven = true): Watched {
  const res = new FakeResponse();
  let stalled = 0;
  let unproven = 0;
  const w = new ReadWatch(res, {
    stallMs: STALL,
    onStalled: () => stalled++,
    ...(withUnproven ? { onUnproven: () => unproven++ } : {}),
  });
  return { res, watch: w, stalled: () => stalled, unproven: () => unproven };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a quiet stream (never backed up)', () => {
  test('is unproven once the stall time passes without a drain, once', () => {
    const w = watch();
    vi.advanceTimersByTime(STALL - 1);
    expect(w.unproven()).toBe(0);
    vi.advanceTimersByTime(STALL / 4);
    expect(w.unproven()).toBe(1);
    vi.advanceTimersByTime(10 * STALL);
    expect([w.unproven(), w.stalled()]).toEqual([1, 0]);
    expect(w.res.listenerCount('drain')).toBe(0);
  });

  test('a drain is proof of reading: the stall time counts again from it', () => {
    const w = watch();
    vi.advanceTimersByTime(STALL * 0.75);
    w.res.writableNeedDrain = true;
    w.res.drain();
    vi.advanceTimersByTime(STALL * 0.75);
    expect(w.unproven()).toBe(0);
    vi.advanceTimersByTime(STALL * 0.5);
    expect(w.unproven()).toBe(1);
  });

  test('without onUnproven (a chat turn) it is left alone however long', () => {
    const w = watch(false);
    vi.advanceTimersByTime(100 * STALL);
    expect(w.stalled()).toBe(0);
    w.watch.stop();
  });
});

describe('a backed-up stream', () => {
  test('is stalled once it has been backed up for the stall time with no drain', () => {
    const w = watch(false);
    w.res.writableNeedDrain = true;
    vi.advanceTimersByTime(STALL);
    expect(w.stalled()).toBe(0);
    vi.advanceTimersByTime(STALL / 2);
    expect(w.stalled()).toBe(1);
  });

  test('a slow reader that drains within the stall time is never stalled or unproven', () => {
    const w = watch();
    for (let i = 0; i < 20; i++) {
      w.res.writableNeedDrain = true;
      vi.advanceTimersByTime(STALL * 0.9);
      w.res.drain();
    }
    expect([w.stalled(), w.unproven()]).toEqual([0, 0]);
    w.watch.stop();
  });

  test('a resumable stream backed up when its proof runs out is stalled then, not later', () => {
    const w = watch();
    vi.advanceTimersByTime(STALL * 0.8);
    w.res.writableNeedDrain = true;
    vi.advanceTimersByTime(STALL * 0.2);
    expect([w.stalled(), w.unproven()]).toEqual([1, 0]);
  });

  test('a chat stream (not resumable) backed up late gets the whole stall time from then', () => {
    const w = watch(false);
    vi.advanceTimersByTime(STALL * 0.8);
    w.res.writableNeedDrain = true;
    vi.advanceTimersByTime(STALL);
    expect(w.stalled()).toBe(0);
    vi.advanceTimersByTime(STALL / 2);
    expect(w.stalled()).toBe(1);
  });
});

test('stop ends the watch: nothing fires afterwards, and stop is idempotent', () => {
  const w = watch();
  w.watch.stop();
  w.watch.stop();
  vi.advanceTimersByTime(10 * STALL);
  expect([w.stalled(), w.unproven()]).toEqual([0, 0]);
  expect(w.res.listenerCount('drain')).toBe(0);
});
