import ICAL from 'ical.js';
import { describe, expect, test } from 'vitest';
import { expandSeries } from '../../../workers/calendar_read/expand.js';
import { parseCalendarData } from '../../../workers/calendar_read/ics.js';
import {
  skipAhead,
  StepBudget,
  StepBudgetExceeded,
  boundedIterator,
  floatingTime,
} from '../../../workers/calendar_read/recur.js';
import { resolveWindow } from '../../../workers/calendar_read/window.js';
import { intlClock, type Wall } from '../../../src/clock/wall-clock.js';
import { vcalendar, vevent } from './fixtures.js';

const local = intlClock('Europe/Berlin');
const HOUR = 3_600_000;

/** The oracle: ical.js walking the rule from DTSTART, every step, no skipping. */
function bruteForce(text: string, window: { startMs: number; endMs: number }): number[] {
  const master = parseCalendarData(text, { local })[0]!.master!;
  const { wall, date, clock } = master.start;
  const it = master.rrules[0]!.iterator(floatingTime(wall, date));
  const length = date ? 24 * HOUR : HOUR;
  const out: number[] = [];
  for (let t = it.next(); t; t = it.next()) {
    const at: Wall = {
      year: t.year,
      month: t.month,
      day: t.day,
      hour: t.hour,
      minute: t.minute,
      second: t.second,
    };
    const ms = clock.toInstant(date ? { ...at, hour: 0, minute: 0, second: 0 } : at);
    if (ms >= window.endMs) break;
    if (ms + length > window.startMs) out.push(ms);
  }
  return out;
}

describe('skipping ahead gives what walking from DTSTART gives', () => {
  const window = resolveWindow({ start: '2026-03-01', end: '2026-05-01' }, 0, local);
  test.each([
    ['20190107T090000', 'FREQ=DAILY'],
    ['20190107T090000', 'FREQ=DAILY;INTERVAL=3'],
    ['20190108T090000', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH'],
    ['20190106T090000', 'FREQ=WEEKLY;INTERVAL=3;WKST=SU;BYDAY=SU,MO'],
    ['20190125T090000', 'FREQ=MONTHLY;BYDAY=-1FR'],
    ['20190131T090000', 'FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=-1'],
    ['20190131T090000', 'FREQ=MONTHLY'],
    ['20191230T090000', 'FREQ=MONTHLY;INTERVAL=2'],
    ['20190303T090000', 'FREQ=YEARLY;BYMONTH=3,4;BYDAY=1SU'],
    ['20170420T090000', 'FREQ=YEARLY;INTERVAL=3'],
    ['20240101T000000', 'FREQ=HOURLY;INTERVAL=7'],
    ['20250101T090000', 'FREQ=MINUTELY;INTERVAL=97;BYHOUR=9,10'],
    ['20230601T090000', 'FREQ=DAILY;COUNT=1020'],
    ['20220606T090000', 'FREQ=WEEKLY;COUNT=200'],
    ['20220115T090000', 'FREQ=MONTHLY;COUNT=52'],
    ['20200410T090000', 'FREQ=YEARLY;COUNT=10'],
    ['20200410T090000', 'FREQ=YEARLY;COUNT=5'],
    ['20250106T090000', 'FREQ=WEEKLY;BYDAY=MO;COUNT=70'],
    ['20190107T090000', 'FREQ=DAILY;UNTIL=20260315T000000Z'],
    ['20190107', 'FREQ=DAILY;INTERVAL=9'],
    ['20190131', 'FREQ=MONTHLY'],
  ])('DTSTART %s %s', (start, rule) => {
    const dtstart =
      start.length === 8 ? `DTSTART;VALUE=DATE:${start}` : `DTSTART;TZID=Europe/Berlin:${start}`;
    const length = start.length === 8 ? 'DURATION:P1D' : 'DURATION:PT1H';
    const text = vcalendar(vevent('x@test', 'SUMMARY:X', dtstart, length, `RRULE:${rule}`));
    const expected = bruteForce(text, window);
    const series = parseCalendarData(text, { local })[0]!;
    // a bound far below what walking from DTSTART needs: only skipping can meet it
    const got = expandSeries(series, { window, local, maxOccurrences: 10_000, maxSteps: 2500 });
    expect(got.capped).toBe(false);
    expect(got.occurrences.map((o) => o.startMs).sort((a, b) => a - b)).toEqual(expected);
  });
});

describe('skipAhead', () => {
  const at = (iso: string): Wall => {
    const [d, t = '00:00:00'] = iso.split('T');
    const [year, month, day] = d!.split('-').map(Number) as [number, number, number];
    const [hour, minute, second] = t.split(':').map(Number) as [number, number, number];
    return { year, month, day, hour, minute, second };
  };
  const rule = (s: string) => ICAL.Recur.fromString(s);

  test('moves by whole periods and keeps the time of day', () => {
    expect(
      skipAhead(rule('FREQ=WEEKLY;INTERVAL=2'), at('1970-01-05T09:00:00'), at('2026-03-01')),
    ).toEqual({
      kind: 'moved',
      start: at('2026-02-16T09:00:00'), // the two-week phase of 1970-01-05
      count: null,
    });
  });

  test('a COUNT rule moves only when every period holds one occurrence, and counts down', () => {
    expect(
      skipAhead(rule('FREQ=DAILY;COUNT=10'), at('2026-01-01T09:00:00'), at('2026-01-05')),
    ).toEqual({
      kind: 'moved',
      start: at('2026-01-04T09:00:00'),
      count: 7,
    });
    expect(
      skipAhead(rule('FREQ=DAILY;COUNT=3'), at('2026-01-01T09:00:00'), at('2026-01-05')),
    ).toEqual({
      kind: 'exhausted',
    });
    expect(
      skipAhead(
        rule('FREQ=WEEKLY;BYDAY=MO,TU;COUNT=9'),
        at('2026-01-05T09:00:00'),
        at('2027-01-01'),
      ),
    ).toEqual({
      kind: 'none',
    });
  });

  test('a monthly rule on the 31st lands on a month that has one', () => {
    const skip = skipAhead(rule('FREQ=MONTHLY'), at('2020-01-31T09:00:00'), at('2026-05-02'));
    expect(skip).toEqual({ kind: 'moved', start: at('2026-03-31T09:00:00'), count: null });
  });

  test('a start already close to the target stays', () => {
    expect(
      skipAhead(rule('FREQ=DAILY'), at('2026-03-01T09:00:00'), at('2026-03-01T10:00:00')),
    ).toEqual({
      kind: 'none',
    });
  });
});

describe('StepBudget', () => {
  test('stops an iterator whose rule can never match, at the bound', () => {
    const budget = new StepBudget(1000);
    const it = boundedIterator(
      ICAL.Recur.fromString('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'),
      floatingTime({ year: 2026, month: 1, day: 1, hour: 9, minute: 0, second: 0 }, false),
      budget,
    );
    expect(it.next()?.toString()).toBe('2026-01-01T09:00:00'); // DTSTART
    expect(() => it.next()).toThrow(StepBudgetExceeded);
    expect(budget.steps).toBe(1000);
  });

  test('stops with timeout once the deadline has passed', () => {
    const budget = new StepBudget(1_000_000, Date.now() - 1);
    expect(() => {
      for (let i = 0; i < 2048; i++) budget.spend();
    }).toThrow(expect.objectContaining({ code: 'timeout' }));
  });
});
