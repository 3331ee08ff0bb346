import { describe, expect, test } from 'vitest';
import {
  intlClock,
  isTimeZone,
  offsetClock,
  wallMs,
  type Wall,
} from '../../../src/clock/wall-clock.js';

/** The clock intlClock builds for any other zone: ICU's answers for 'Etc/UTC'. */
const icuUtc = intlClock('Etc/UTC');

const INSTANTS = [
  0,
  -1,
  999,
  1_000,
  Date.UTC(2026, 2, 29, 1, 30, 15, 500),
  Date.UTC(1969, 11, 31, 23, 59, 59),
  Date.UTC(2400, 1, 29, 12),
  Date.UTC(50, 0, 1) - 1,
];

describe("intlClock('UTC'), answered without ICU", () => {
  test("is a zone isTimeZone accepts, like ICU's Etc/UTC", () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Etc/UTC')).toBe(true);
    expect(intlClock('UTC').name).toBe('UTC');
  });

  test.each(INSTANTS)('gives the wall time ICU gives at %d, and back', (instant) => {
    const utc = intlClock('UTC');
    const wall: Wall = utc.toWall(instant);
    expect(wall).toEqual(icuUtc.toWall(instant));
    expect(utc.toInstant(wall)).toBe(icuUtc.toInstant(wall));
    expect(utc.toInstant(wall)).toBe(wallMs(wall));
  });

  test('agrees with a zero-offset clock', () => {
    const zero = offsetClock('zero', () => 0);
    for (const t of INSTANTS) expect(intlClock('UTC').toWall(t)).toEqual(zero.toWall(t));
  });
});
