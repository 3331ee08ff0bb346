import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/legion/index.js';
import { CalendarReadInputSchema } from '../../../workers/calendar_read/schema.js';
import { parseMoment, resolveWindow } from '../../../workers/calendar_read/window.js';
import { formatInstant, intlClock } from '../../../src/clock/index.js';

const berlin = intlClock('Europe/Berlin');
const newYork = intlClock('America/New_York');
const NOW = Date.parse('2026-03-05T10:15:00Z');

describe('parseMoment', () => {
  test.each([
    ['2026-03-10', '2026-03-10T00:00:00+01:00'],
    ['2026-03-10T09:30', '2026-03-10T09:30:00+01:00'],
    ['2026-03-10 09:30:15', '2026-03-10T09:30:15+01:00'],
    ['2026-03-10T09:00:00Z', '2026-03-10T10:00:00+01:00'],
    ['2026-03-10T09:00:00.750z', '2026-03-10T10:00:00+01:00'],
    ['2026-03-09T09:00:00-04:00', '2026-03-09T14:00:00+01:00'],
    ['2026-03-09T09:00:00-0400', '2026-03-09T14:00:00+01:00'],
    ['2026-07-01', '2026-07-01T00:00:00+02:00'],
  ])('%s is %s in Europe/Berlin', (text, shown) => {
    expect(formatInstant(parseMoment(text, 'start', berlin), berlin)).toBe(shown);
  });

  test('a date is local midnight in the configured zone, not UTC midnight', () => {
    expect(parseMoment('2026-03-10', 'start', newYork)).toBe(
      Date.parse('2026-03-10T04:00:00Z') /* EDT since 03-08 */,
    );
  });

  test('a local time in the spring-forward gap moves forward by the gap', () => {
    const t = parseMoment('2026-03-08T02:30', 'start', newYork);
    expect(formatInstant(t, newYork)).toBe('2026-03-08T03:30:00-04:00');
  });

  test.each(['2026-02-30', '2026-13-01', '2026-03-10T24:00', '2026-03-10T09:00+25:00', 'tomorrow'])(
    '%s is refused naming the field',
    (text) => {
      expect(() => parseMoment(text, 'end', berlin)).toThrow(InvalidInputError);
      expect(() => parseMoment(text, 'end', berlin)).toThrow(/^end: /);
    },
  );
});

describe('resolveWindow', () => {
  test('the default is now to now + 7 days', () => {
    expect(resolveWindow({}, NOW, berlin)).toEqual({
      startMs: NOW,
      endMs: NOW + 7 * 86_400_000,
      start: '2026-03-05T11:15:00+01:00',
      end: '2026-03-12T11:15:00+01:00',
    });
  });

  test('days counts local days: across a DST change a day is 23 hours', () => {
    const w = resolveWindow({ start: '2026-03-29', days: 1 }, NOW, berlin);
    expect([w.start, w.end]).toEqual(['2026-03-29T00:00:00+01:00', '2026-03-30T00:00:00+02:00']);
    expect(w.endMs - w.startMs).toBe(23 * 3_600_000);
  });

  test('days without start counts from now; fractions are allowed', () => {
    const w = resolveWindow({ days: 0.5 }, NOW, berlin);
    expect(w.end).toBe('2026-03-05T23:15:00+01:00');
  });

  test('366 days is the most one call reads', () => {
    expect(resolveWindow({ start: '2026-01-01', days: 366 }, NOW, berlin).end).toBe(
      '2027-01-02T00:00:00+01:00',
    );
    expect(() => resolveWindow({ start: '2026-01-01', end: '2027-01-03' }, NOW, berlin)).toThrow(
      /spans 367\.0 days; at most 366/,
    );
  });

  test.each([
    [
      { start: '2026-03-10', end: '2026-03-10' },
      /end \(2026-03-10T00:00:00\+01:00\) must be after start/,
    ],
    [{ start: '2026-03-10', end: '2026-03-09' }, /must be after start/],
    [{ end: '2026-03-11', days: 2 }, /^days: give end or days, not both/],
  ])('%j is refused', (input, message) => {
    expect(() => resolveWindow(input, NOW, berlin)).toThrow(message);
  });

  test('the refusal carries details naming the field', () => {
    try {
      resolveWindow({ start: '2026-03-10', end: '2026-03-01' }, NOW, berlin);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).details).toEqual([
        { path: 'end', message: expect.stringContaining('end is exclusive') },
      ]);
    }
  });
});

describe('input schema', () => {
  test('limit defaults to 50; unknown keys, a non-ISO date and limit 501 are refused', () => {
    expect(CalendarReadInputSchema.parse({}).limit).toBe(50);
    expect(CalendarReadInputSchema.safeParse({ from: '2026-03-10' }).success).toBe(false);
    expect(CalendarReadInputSchema.safeParse({ start: 'next monday' }).success).toBe(false);
    expect(CalendarReadInputSchema.safeParse({ limit: 501 }).success).toBe(false);
    expect(CalendarReadInputSchema.safeParse({ days: 0 }).success).toBe(false);
    expect(CalendarReadInputSchema.safeParse({ calendars: [] }).success).toBe(false);
  });

  test('every form the policy reads as ISO 8601 passes the schema', () => {
    for (const start of [
      '2026-03-10',
      '2026-03-10T09:00',
      '2026-03-10 09:00:00',
      '2026-03-10T09:00:00.123456789Z',
      '2026-03-10T09:00+0100',
    ]) {
      expect(CalendarReadInputSchema.safeParse({ start }).success, start).toBe(true);
    }
  });
});
