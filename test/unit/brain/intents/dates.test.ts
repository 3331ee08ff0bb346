import { describe, expect, test } from 'vitest';
import { DATE_PHRASES } from '../../../../src/brain/intents/dates.js';
import type { IntentsError } from '../../../../src/brain/intents/errors.js';
import { intentsOf, ruleFile } from './helpers.js';

const agenda = intentsOf(
  ruleFile(`
name: agenda
tool: calendar_read
sentences: ["agenda {when}", "agenda"]
slots: { when: { type: date_range, default: today } }
input: { start: "{when.start}", end: "{when.end}", said: "{when}" }
reply: "{when}: {when.start} - {when.end}"
`),
);

function range(phrase: string, now: string, timeZone: string) {
  const hit = agenda.match(`agenda ${phrase}`.trim(), { now: new Date(now), timeZone });
  return hit?.input;
}

// 2026-03-29 is a Sunday: Berlin moves clocks from 02:00 to 03:00 (a 23-hour day).
const SPRING = '2026-03-29T08:00:00Z';
// 2026-10-25 is a Sunday: Berlin moves clocks from 03:00 back to 02:00 (a 25-hour day).
const AUTUMN = '2026-10-25T08:00:00Z';
// A Wednesday, 23:30 in New York (already Thursday in UTC).
const NY_LATE = '2026-06-11T03:30:00Z';

describe('date_range slots: [start, end) at local midnight, weeks from Monday', () => {
  test.each<[string, string, string, string, string]>([
    ['today', SPRING, 'Europe/Berlin', '2026-03-29T00:00:00+01:00', '2026-03-30T00:00:00+02:00'],
    ['tonight', SPRING, 'Europe/Berlin', '2026-03-29T18:00:00+02:00', '2026-03-30T00:00:00+02:00'],
    ['tomorrow', SPRING, 'Europe/Berlin', '2026-03-30T00:00:00+02:00', '2026-03-31T00:00:00+02:00'],
    [
      'yesterday',
      SPRING,
      'Europe/Berlin',
      '2026-03-28T00:00:00+01:00',
      '2026-03-29T00:00:00+01:00',
    ],
    [
      'this week',
      SPRING,
      'Europe/Berlin',
      '2026-03-23T00:00:00+01:00',
      '2026-03-30T00:00:00+02:00',
    ],
    [
      'next week',
      SPRING,
      'Europe/Berlin',
      '2026-03-30T00:00:00+02:00',
      '2026-04-06T00:00:00+02:00',
    ],
    [
      'last week',
      SPRING,
      'Europe/Berlin',
      '2026-03-16T00:00:00+01:00',
      '2026-03-23T00:00:00+01:00',
    ],
    [
      'this weekend',
      SPRING,
      'Europe/Berlin',
      '2026-03-28T00:00:00+01:00',
      '2026-03-30T00:00:00+02:00',
    ],
    [
      'next weekend',
      SPRING,
      'Europe/Berlin',
      '2026-04-04T00:00:00+02:00',
      '2026-04-06T00:00:00+02:00',
    ],
    [
      'this month',
      SPRING,
      'Europe/Berlin',
      '2026-03-01T00:00:00+01:00',
      '2026-04-01T00:00:00+02:00',
    ],
    [
      'next month',
      SPRING,
      'Europe/Berlin',
      '2026-04-01T00:00:00+02:00',
      '2026-05-01T00:00:00+02:00',
    ],
    [
      'last month',
      SPRING,
      'Europe/Berlin',
      '2026-02-01T00:00:00+01:00',
      '2026-03-01T00:00:00+01:00',
    ],
    ['sunday', SPRING, 'Europe/Berlin', '2026-03-29T00:00:00+01:00', '2026-03-30T00:00:00+02:00'],
    ['monday', SPRING, 'Europe/Berlin', '2026-03-30T00:00:00+02:00', '2026-03-31T00:00:00+02:00'],
    ['friday', SPRING, 'Europe/Berlin', '2026-04-03T00:00:00+02:00', '2026-04-04T00:00:00+02:00'],
    ['today', AUTUMN, 'Europe/Berlin', '2026-10-25T00:00:00+02:00', '2026-10-26T00:00:00+01:00'],
    [
      'this week',
      AUTUMN,
      'Europe/Berlin',
      '2026-10-19T00:00:00+02:00',
      '2026-10-26T00:00:00+01:00',
    ],
    [
      'today',
      NY_LATE,
      'America/New_York',
      '2026-06-10T00:00:00-04:00',
      '2026-06-11T00:00:00-04:00',
    ],
    ['today', NY_LATE, 'UTC', '2026-06-11T00:00:00+00:00', '2026-06-12T00:00:00+00:00'],
    [
      'tomorrow',
      NY_LATE,
      'America/New_York',
      '2026-06-11T00:00:00-04:00',
      '2026-06-12T00:00:00-04:00',
    ],
    [
      'this week',
      NY_LATE,
      'America/New_York',
      '2026-06-08T00:00:00-04:00',
      '2026-06-15T00:00:00-04:00',
    ],
    [
      'this weekend',
      NY_LATE,
      'America/New_York',
      '2026-06-13T00:00:00-04:00',
      '2026-06-15T00:00:00-04:00',
    ],
    [
      'wednesday',
      NY_LATE,
      'America/New_York',
      '2026-06-10T00:00:00-04:00',
      '2026-06-11T00:00:00-04:00',
    ],
    [
      'next month',
      '2026-12-31T12:00:00Z',
      'Asia/Tokyo',
      '2027-01-01T00:00:00+09:00',
      '2027-02-01T00:00:00+09:00',
    ],
    [
      'today',
      '2026-06-11T12:00:00Z',
      'Asia/Kolkata',
      '2026-06-11T00:00:00+05:30',
      '2026-06-12T00:00:00+05:30',
    ],
    // Chile skips local midnight on 2024-09-08: that day begins at 01:00.
    [
      'today',
      '2024-09-08T12:00:00Z',
      'America/Santiago',
      '2024-09-08T01:00:00-03:00',
      '2024-09-09T00:00:00-03:00',
    ],
  ])('%s at %s in %s', (phrase, now, zone, start, end) => {
    expect(range(phrase, now, zone)).toEqual({ start, end, said: phrase });
  });

  test('the DST days are 23 and 25 hours long', () => {
    const hours = (now: string) => {
      const r = range('today', now, 'Europe/Berlin') as { start: string; end: string };
      return (Date.parse(r.end) - Date.parse(r.start)) / 3_600_000;
    };
    expect(hours(SPRING)).toBe(23);
    expect(hours(AUTUMN)).toBe(25);
  });

  test('a sentence without the slot uses its default', () => {
    expect(range('', SPRING, 'Europe/Berlin')).toEqual({
      start: '2026-03-29T00:00:00+01:00',
      end: '2026-03-30T00:00:00+02:00',
      said: 'today',
    });
  });

  test('every phrase gives a non-empty range in both zones', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York']) {
      for (const phrase of DATE_PHRASES) {
        const r = range(phrase, SPRING, zone) as { start: string; end: string };
        expect(Date.parse(r.end) - Date.parse(r.start), `${phrase} in ${zone}`).toBeGreaterThan(0);
      }
    }
  });

  test('an unknown phrase is not a date', () => {
    expect(range('someday', SPRING, 'Europe/Berlin')).toBeUndefined();
  });

  test.each<[string, { now: Date; timeZone: string }]>([
    ['an unknown time zone', { now: new Date(SPRING), timeZone: 'Mars/Olympus' }],
    ['an invalid date', { now: new Date('nope'), timeZone: 'UTC' }],
  ])('match refuses %s with intents_bad_context', (_what, ctx) => {
    expect(() => agenda.match('agenda today', ctx)).toThrow(
      expect.objectContaining({ code: 'intents_bad_context' }) as IntentsError,
    );
  });
});
