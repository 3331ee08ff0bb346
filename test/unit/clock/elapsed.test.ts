import { describe, expect, test } from 'vitest';
import { msSince, roundMs, secondsText, wholeMsSince } from '../../../src/clock/elapsed.js';

// Issue 30: one rule for rounding durations to ms (records: the microsecond; log lines: whole).

describe('roundMs', () => {
  test.each([
    [0, 0],
    [1.23456, 1.235],
    [1.2344, 1.234],
    [12.0004999, 12],
    [1234.5678, 1234.568],
  ])('%d ms is %d', (ms, rounded) => {
    expect(roundMs(ms)).toBe(rounded);
  });

  test('keeps at most three decimals', () => {
    for (const ms of [0.1 + 0.2, 7.00049, 99.99951, 1e6 / 3]) {
      expect(String(roundMs(ms))).toMatch(/^\d+(\.\d{1,3})?$/);
    }
  });
});

describe('msSince and wholeMsSince', () => {
  test('measure from a performance.now() reading, to the microsecond or the whole ms', () => {
    const started = performance.now() - 250.123456;
    const fine = msSince(started);
    expect(fine).toBeGreaterThanOrEqual(250.123);
    expect(fine).toBeLessThan(250.123 + 1000);
    expect(String(fine)).toMatch(/^\d+(\.\d{1,3})?$/);
    const whole = wholeMsSince(started);
    expect(Number.isInteger(whole)).toBe(true);
    expect(whole).toBeGreaterThanOrEqual(250);
  });
});

describe('secondsText', () => {
  test.each([
    [0, '0.0 s'],
    [250, '0.3 s'],
    [10_000, '10.0 s'],
    [12_345, '12.3 s'],
    [61_990, '62.0 s'],
  ])('%d ms reads %s', (ms, text) => {
    expect(secondsText(ms)).toBe(text);
  });
});
