import ICAL from 'ical.js';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { toEvents } from '../../../workers/calendar_read/format.js';
import { parseCalendarData } from '../../../workers/calendar_read/ics.js';
import { vtimezoneClock } from '../../../workers/calendar_read/vtimezone.js';
import { scanObjects } from '../../../workers/calendar_read/scan.js';
import { resolveWindow } from '../../../workers/calendar_read/window.js';
import { intlClock } from '../../../src/clock/index.js';
import {
  NEW_YORK_WEEKLY,
  STANDUP,
  TRIP,
  berlinVtimezone,
  everySecondVtimezone,
  newYorkVtimezone,
  vcalendar,
  vevent,
} from './fixtures.js';

interface Run {
  zone?: string;
  maxOccurrences?: number;
  maxSteps?: number;
  notes?: string[];
}

/** Reads one object's events in [start, end) as the tool's parsing thread would, then formats them. */
function read(text: string, start: string, end: string, run: Run = {}) {
  const timezone = run.zone ?? 'Europe/Berlin';
  const local = intlClock(timezone);
  const window = resolveWindow({ start, end }, 0, local);
  const result = scanObjects({
    objects: [{ calendar: 'Home', href: '/alice/home/x.ics', data: text }],
    window,
    timezone,
    query: undefined,
    maxOccurrences: run.maxOccurrences ?? 1000,
    limit: 1000,
    deadline: Date.now() + 60_000,
    ...(run.maxSteps === undefined ? {} : { maxSteps: run.maxSteps }),
  });
  run.notes?.push(...result.notes.map((n) => n.message));
  return { events: toEvents(result.found, local, 1000).events, capped: result.capped };
}

const times = (events: { start: string; end: string }[]) => events.map((e) => [e.start, e.end]);

describe('recurring events', () => {
  test('a weekly rule honours EXDATE, a moved occurrence, a cancelled one and a UTC UNTIL', () => {
    const { events } = read(STANDUP, '2026-03-01', '2026-04-01');
    expect(events.map((e) => [e.summary, e.start, e.end])).toEqual([
      ['Standup', '2026-03-02T09:00:00+01:00', '2026-03-02T09:30:00+01:00'],
      ['Standup (moved)', '2026-03-17T14:00:00+01:00', '2026-03-17T14:30:00+01:00'],
      ['Standup', '2026-03-30T09:00:00+02:00', '2026-03-30T09:30:00+02:00'],
    ]);
    expect(events.every((e) => e.recurring && e.uid === 'standup@test')).toBe(true);
    expect(events[1]?.location).toBe('Office'); // the override inherits what it leaves out
  });

  test('the same rule read through a VTIMEZONE (as Radicale stores it) gives the same answer', () => {
    const withZone = STANDUP.replace(
      'PRODID:-//CAESAR//calendar_read tests//EN\r\n',
      (line) => `${line}${berlinVtimezone()}\r\n`,
    );
    expect(withZone).toContain('BEGIN:VTIMEZONE');
    const viaIntl = read(STANDUP, '2026-03-01', '2026-04-01').events;
    expect(read(withZone, '2026-03-01', '2026-04-01').events).toEqual(viaIntl);
    expect(viaIntl).toHaveLength(3);
  });

  test('an occurrence moved into the window appears, one moved out of it does not', () => {
    const text = vcalendar(
      vevent(
        'yoga@test',
        'SUMMARY:Yoga',
        'DTSTART;TZID=Europe/Berlin:20260302T180000',
        'DURATION:PT1H',
        'RRULE:FREQ=WEEKLY',
      ),
      vevent(
        'yoga@test',
        'SUMMARY:Yoga (early)',
        'RECURRENCE-ID;TZID=Europe/Berlin:20260330T180000',
        'DTSTART;TZID=Europe/Berlin:20260320T070000',
        'DTEND;TZID=Europe/Berlin:20260320T080000',
      ),
      vevent(
        'yoga@test',
        'SUMMARY:Yoga (late)',
        'RECURRENCE-ID;TZID=Europe/Berlin:20260316T180000',
        'DTSTART;TZID=Europe/Berlin:20260410T180000',
      ),
    );
    const { events } = read(text, '2026-03-15', '2026-03-25');
    expect(events.map((e) => [e.summary, e.start])).toEqual([
      ['Yoga (early)', '2026-03-20T07:00:00+01:00'],
      ['Yoga', '2026-03-23T18:00:00+01:00'],
    ]);
  });

  test.each([
    ['20260115', 'FREQ=MONTHLY;COUNT=3', ['2026-01-15', '2026-02-15', '2026-03-15']],
    [
      '20260115',
      'FREQ=MONTHLY;BYMONTHDAY=1,15;UNTIL=20260401T000000Z',
      ['2026-01-15', '2026-02-01', '2026-02-15', '2026-03-01', '2026-03-15'],
    ],
    ['20260130', 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=3', ['2026-01-30', '2026-02-27', '2026-03-27']],
    ['20260131', 'FREQ=MONTHLY;UNTIL=20260601T000000Z', ['2026-01-31', '2026-03-31', '2026-05-31']],
    ['20240229', 'FREQ=YEARLY', ['2024-02-29']],
    [
      '20260115',
      'FREQ=DAILY;INTERVAL=10;COUNT=4',
      ['2026-01-15', '2026-01-25', '2026-02-04', '2026-02-14'],
    ],
  ])('from %s, %s gives its dates in 2026', (day, rule, dates) => {
    const text = vcalendar(
      vevent('r@test', 'SUMMARY:R', `DTSTART:${day}T100000Z`, 'DURATION:PT1H', `RRULE:${rule}`),
    );
    const { events } = read(text, '2026-01-01', '2027-01-01', { zone: 'UTC' });
    expect(events.map((e) => e.start.slice(0, 10))).toEqual(
      dates.filter((d) => d.startsWith('2026')),
    );
  });

  test('a yearly rule on February 29 from 2024 skips to 2028', () => {
    const text = vcalendar(
      vevent('leap@test', 'SUMMARY:Leap', 'DTSTART;VALUE=DATE:20240229', 'RRULE:FREQ=YEARLY'),
    );
    const { events } = read(text, '2027-06-01', '2028-06-01', { zone: 'UTC' });
    expect(events.map((e) => [e.start, e.end])).toEqual([['2028-02-29', '2028-03-01']]);
  });

  test('DTSTART is the first occurrence even when the rule would not produce it', () => {
    const text = vcalendar(
      vevent(
        'r@test',
        'SUMMARY:R',
        'DTSTART:20260115T100000Z',
        'RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=2',
      ),
    );
    const { events } = read(text, '2026-01-01', '2026-06-01', { zone: 'UTC' });
    expect(events.map((e) => e.start.slice(0, 10))).toEqual([
      '2026-01-15',
      '2026-01-30',
      '2026-02-27',
    ]);
  });

  test('RDATE adds dates, date-times and periods; EXDATE removes one of them', () => {
    const text = vcalendar(
      vevent(
        'rd@test',
        'SUMMARY:Clinic',
        'DTSTART;TZID=Europe/Berlin:20260303T100000',
        'DTEND;TZID=Europe/Berlin:20260303T110000',
        'RDATE;TZID=Europe/Berlin:20260305T100000,20260312T100000',
        'RDATE;VALUE=PERIOD:20260320T090000Z/20260320T120000Z',
        'EXDATE;TZID=Europe/Berlin:20260312T100000',
      ),
    );
    const { events } = read(text, '2026-03-01', '2026-04-01');
    expect(times(events)).toEqual([
      ['2026-03-03T10:00:00+01:00', '2026-03-03T11:00:00+01:00'],
      ['2026-03-05T10:00:00+01:00', '2026-03-05T11:00:00+01:00'],
      ['2026-03-20T10:00:00+01:00', '2026-03-20T13:00:00+01:00'],
    ]);
    expect(events.every((e) => e.recurring)).toBe(true);
  });

  test('an all-day weekly rule with a date EXDATE, and a timed rule with a date EXDATE', () => {
    const text = vcalendar(
      vevent(
        'bins@test',
        'SUMMARY:Bins',
        'DTSTART;VALUE=DATE:20260302',
        'RRULE:FREQ=WEEKLY;COUNT=4',
        'EXDATE;VALUE=DATE:20260309',
      ),
      vevent(
        'run@test',
        'SUMMARY:Run',
        'DTSTART;TZID=Europe/Berlin:20260302T070000',
        'RRULE:FREQ=DAILY;COUNT=3',
        'EXDATE;VALUE=DATE:20260303',
      ),
    );
    const { events } = read(text, '2026-03-01', '2026-04-01');
    expect(events.map((e) => [e.summary, e.start, e.end])).toEqual([
      ['Bins', '2026-03-02', '2026-03-03'],
      ['Run', '2026-03-02T07:00:00+01:00', '2026-03-02T07:00:00+01:00'],
      ['Run', '2026-03-04T07:00:00+01:00', '2026-03-04T07:00:00+01:00'],
      ['Bins', '2026-03-16', '2026-03-17'],
      ['Bins', '2026-03-23', '2026-03-24'],
    ]);
  });

  test('overrides whose master is not in the object still appear', () => {
    const text = vcalendar(
      vevent(
        'invited@test',
        'SUMMARY:One instance',
        'RECURRENCE-ID:20260310T100000Z',
        'DTSTART:20260310T120000Z',
        'DTEND:20260310T130000Z',
      ),
    );
    const { events } = read(text, '2026-03-10', '2026-03-11', { zone: 'UTC' });
    expect(events.map((e) => [e.summary, e.start, e.recurring])).toEqual([
      ['One instance', '2026-03-10T12:00:00+00:00', true],
    ]);
  });
});

describe('bounds', () => {
  test('an endless daily rule from 1970 is cheap and exact in a 2026 window', () => {
    const text = vcalendar(
      vevent(
        'old@test',
        'SUMMARY:Pills',
        'DTSTART;TZID=Europe/Berlin:19700101T080000',
        'RRULE:FREQ=DAILY',
      ),
    );
    const { events, capped } = read(text, '2026-03-27', '2026-03-31', { maxSteps: 50 });
    expect(capped).toBe(false);
    expect(events.map((e) => e.start)).toEqual([
      '2026-03-27T08:00:00+01:00',
      '2026-03-28T08:00:00+01:00',
      '2026-03-29T08:00:00+02:00',
      '2026-03-30T08:00:00+02:00',
    ]);
  });

  test('a rule whose parts never match stops at the step bound instead of hanging', () => {
    const notes: string[] = [];
    const text = vcalendar(
      vevent(
        'never@test',
        'SUMMARY:Never',
        'DTSTART:20260101T090000Z',
        'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      ),
    );
    const { events, capped } = read(text, '2026-03-01', '2026-04-01', { maxSteps: 2000, notes });
    expect(events).toEqual([]);
    expect(capped).toBe(true);
    expect(notes).toContain('recurrence expansion bound reached; later occurrences left out');
  });

  test('max_occurrences caps one event and says so', () => {
    const text = vcalendar(
      vevent('often@test', 'SUMMARY:Often', 'DTSTART:20260301T000000Z', 'RRULE:FREQ=HOURLY'),
    );
    const { events, capped } = read(text, '2026-03-01', '2026-03-08', {
      maxOccurrences: 10,
      zone: 'UTC',
    });
    expect(events).toHaveLength(10);
    expect(events.at(-1)?.start).toBe('2026-03-01T09:00:00+00:00');
    expect(capped).toBe(true);
  });

  test('a rule ical.js cannot iterate is left out with a note; the event keeps its DTSTART', () => {
    const notes: string[] = [];
    const text = vcalendar(
      vevent(
        'bad@test',
        'SUMMARY:Bad',
        'DTSTART:20260302T090000Z',
        'RRULE:FREQ=WEEKLY;BYMONTHDAY=1',
      ),
    );
    const { events } = read(text, '2026-03-01', '2026-03-08', { zone: 'UTC', notes });
    expect(events.map((e) => e.start)).toEqual(['2026-03-02T09:00:00+00:00']);
    expect(notes).toContain('RRULE ical.js cannot iterate ignored');
  });

  test('text ical.js cannot parse at all is refused (the tool skips that object)', () => {
    const local = intlClock('UTC');
    const bad = vcalendar(
      vevent('x@test', 'DTSTART:20260302T090000Z', 'RRULE:FREQ=DAILY;BYHOUR=25'),
    );
    expect(() => parseCalendarData(bad, { local })).toThrow(/BYHOUR/);
    expect(() => parseCalendarData('not a calendar', { local })).toThrow();
  });
});

describe('unbounded rules that started long ago', () => {
  const DAY = 86_400_000;
  const ago = (days: number) => {
    const d = new Date(Date.parse('2026-03-10T09:00:00Z') - days * DAY);
    return d.toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z';
  };

  test('a SECONDLY rule from 400 days ago is listed in a short window, not truncated', () => {
    const text = vcalendar(
      vevent('tick@test', 'SUMMARY:Tick', `DTSTART:${ago(400)}`, 'RRULE:FREQ=SECONDLY'),
    );
    const { events, capped } = read(text, '2026-03-10T09:00:00Z', '2026-03-10T09:05:00Z', {
      zone: 'UTC',
    });
    expect(capped).toBe(false);
    expect(events).toHaveLength(300);
    expect(events[0]?.start).toBe('2026-03-10T09:00:00+00:00');
    expect(events.at(-1)?.start).toBe('2026-03-10T09:04:59+00:00');
  });

  test('the margin before the window is the occurrence length: one ending at its start is out', () => {
    const text = vcalendar(
      vevent(
        'tick@test',
        'SUMMARY:Tick',
        `DTSTART;TZID=Europe/Berlin:${ago(400).slice(0, -1)}`,
        'DURATION:PT30S',
        'RRULE:FREQ=SECONDLY',
      ),
    );
    const { events, capped } = read(text, '2026-03-10T09:00:00Z', '2026-03-10T09:05:00Z', {
      maxSteps: 1000,
    });
    expect(capped).toBe(false);
    expect(events).toHaveLength(329);
    expect(events[0]?.start).toBe('2026-03-10T09:59:31+01:00');
  });

  test('a MINUTELY rule from 1970 costs steps for the window only', () => {
    const text = vcalendar(
      vevent('m@test', 'SUMMARY:M', 'DTSTART:19700101T000000Z', 'RRULE:FREQ=MINUTELY'),
    );
    const { events, capped } = read(text, '2026-03-10', '2026-03-10T02:00', {
      zone: 'UTC',
      maxSteps: 200,
    });
    expect(capped).toBe(false);
    expect(events).toHaveLength(120);
  });
});

describe('the skip target is exact around offset changes', () => {
  // The same rule with COUNT (and a BY-part) is never skipped ahead (recur.ts), so it is the
  // walk from DTSTART; without COUNT it starts just before the window. Both must agree.
  const windows = [
    ['spring gap', '2026-03-29T00:30:00Z', '2026-03-29T02:30:00Z', '20260326T000000'],
    ['just after the gap', '2026-03-29T01:10:00Z', '2026-03-29T01:40:00Z', '20260326T000000'],
    ['autumn fold', '2026-10-25T00:30:00Z', '2026-10-25T02:30:00Z', '20261022T000000'],
    ['just after the fold', '2026-10-25T01:00:00Z', '2026-10-25T01:20:00Z', '20261022T000000'],
  ] as const;
  const shapes = ['', 'DURATION:PT30M', 'DURATION:PT1H', 'DURATION:PT90M', 'DURATION:P1D'];
  const rules = ['FREQ=MINUTELY;INTERVAL=7;BYSECOND=0', 'FREQ=HOURLY;BYMINUTE=0,15,45'];
  const cases = windows.flatMap((w) =>
    shapes.flatMap((shape) =>
      rules.flatMap((rule) => [true, false].map((zone) => ({ w, shape, rule, zone }))),
    ),
  );

  test.each(cases)('$w.0, $rule, $shape, VTIMEZONE: $zone', ({ w, shape, rule, zone }) => {
    const event = (r: string) =>
      vcalendar(
        ...(zone ? [berlinVtimezone()] : []),
        vevent(
          'x@test',
          'SUMMARY:X',
          `DTSTART;TZID=Europe/Berlin:${w[3]}`,
          ...(shape ? [shape] : []),
          `RRULE:${r}`,
        ),
      );
    const walked = read(event(`${rule};COUNT=100000`), w[1], w[2], { zone: 'UTC' });
    const skipped = read(event(rule), w[1], w[2], { zone: 'UTC', maxSteps: 3000 });
    expect(walked.capped).toBe(false);
    expect(skipped.capped).toBe(false);
    expect(skipped.events.map((e) => e.start)).toEqual(walked.events.map((e) => e.start));
    // a wall time the fold repeats is read as the first of the two (RFC 5545), so an
    // occurrence of no length there is before the window that starts at the fold
    const none = w[0] === 'just after the fold' && shape === '';
    expect(walked.events.length > 0).toBe(!none);
  });
});

describe('a hostile VTIMEZONE', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** ical.js's own zone expansion walks every observance from its DTSTART, unbounded. */
  function forbidIcalZoneExpansion() {
    for (const name of ['_ensureCoverage', 'utcOffset'] as const) {
      vi.spyOn(ICAL.Timezone.prototype, name).mockImplementation(() => {
        throw new Error(`ical.js Timezone.${name} was called`);
      });
    }
  }

  test('zones that change every second from 1900: the events are listed in the IANA zone of the TZID', () => {
    forbidIcalZoneExpansion();
    const notes: string[] = [];
    const text = vcalendar(
      everySecondVtimezone('Europe/Berlin'),
      vevent(
        'often@test',
        'SUMMARY:Often',
        'DTSTART;TZID=Europe/Berlin:20260310T090000',
        'RRULE:FREQ=MINUTELY',
      ),
    );
    const { events, capped } = read(text, '2026-03-10T09:00', '2026-03-10T10:00', { notes });
    expect(events).toHaveLength(60);
    expect(events[0]?.start).toBe('2026-03-10T09:00:00+01:00');
    expect(capped).toBe(false);
    expect(notes.some((n) => /VTIMEZONE.*bound/.test(n))).toBe(true);
  });

  test('a TZID Intl does not know falls back to the configured zone', () => {
    forbidIcalZoneExpansion();
    const notes: string[] = [];
    const text = vcalendar(
      everySecondVtimezone('Hostile Standard Time'),
      vevent('x@test', 'SUMMARY:X', 'DTSTART;TZID=Hostile Standard Time:20260310T090000'),
    );
    const { events } = read(text, '2026-03-10', '2026-03-11', { zone: 'America/New_York', notes });
    expect(events.map((e) => e.start)).toEqual(['2026-03-10T09:00:00-04:00']);
    expect(notes.some((n) => /configured zone/.test(n))).toBe(true);
  });

  test('an ordinary VTIMEZONE is read without ical.js zone expansion', () => {
    forbidIcalZoneExpansion();
    const { events } = read(NEW_YORK_WEEKLY, '2026-03-01', '2026-04-01', {
      zone: 'America/New_York',
    });
    expect(events.map((e) => e.start)).toEqual([
      '2026-03-02T09:00:00-05:00',
      '2026-03-09T09:00:00-04:00',
      '2026-03-16T09:00:00-04:00',
      '2026-03-23T09:00:00-04:00',
    ]);
  });
});

describe('time zones', () => {
  test('09:00 New York stays 09:00 local across the March DST change', () => {
    const { events } = read(NEW_YORK_WEEKLY, '2026-03-01', '2026-04-01', {
      zone: 'America/New_York',
    });
    expect(events.map((e) => e.start)).toEqual([
      '2026-03-02T09:00:00-05:00',
      '2026-03-09T09:00:00-04:00',
      '2026-03-16T09:00:00-04:00',
      '2026-03-23T09:00:00-04:00',
    ]);
  });

  test('the same occurrences shown in Europe/Berlin move with both zones', () => {
    const { events } = read(NEW_YORK_WEEKLY, '2026-03-01', '2026-04-01');
    expect(times(events)).toEqual([
      ['2026-03-02T15:00:00+01:00', '2026-03-02T16:00:00+01:00'],
      ['2026-03-09T14:00:00+01:00', '2026-03-09T15:00:00+01:00'],
      ['2026-03-16T14:00:00+01:00', '2026-03-16T15:00:00+01:00'],
      ['2026-03-23T14:00:00+01:00', '2026-03-23T15:00:00+01:00'],
    ]);
  });

  test('a VTIMEZONE clock agrees with Intl both ways, on both sides of both changes', () => {
    const cal = new ICAL.Component(ICAL.parse(vcalendar(berlinVtimezone())) as unknown[]);
    const clock = vtimezoneClock(new ICAL.Timezone(cal.getFirstSubcomponent('vtimezone')!));
    const intl = intlClock('Europe/Berlin');
    for (const iso of [
      '2026-03-29T00:59:59Z',
      '2026-03-29T01:00:00Z',
      '2026-03-30T07:00:00Z',
      '2026-07-01T12:34:56Z',
      '2026-10-25T00:30:00Z',
      '2026-10-25T01:30:00Z',
    ]) {
      const t = Date.parse(iso);
      expect(clock.toWall(t), iso).toEqual(intl.toWall(t));
      expect(clock.toInstant(intl.toWall(t)), iso).toBe(intl.toInstant(intl.toWall(t)));
    }
  });

  test.each([
    ['Intl', ''],
    ['VTIMEZONE', 'zone'],
  ])(
    'via %s, a time that occurs twice is the first; one that does not exist moves forward',
    (_via, withZone) => {
      const text = vcalendar(
        ...(withZone ? [berlinVtimezone()] : []),
        vevent('twice@test', 'SUMMARY:Twice', 'DTSTART;TZID=Europe/Berlin:20261025T023000'),
        vevent('never@test', 'SUMMARY:Gap', 'DTSTART;TZID=Europe/Berlin:20260329T023000'),
      );
      const shown = (start: string, end: string) =>
        read(text, start, end, { zone: 'UTC' }).events.map((e) => e.start);
      expect(shown('2026-10-25', '2026-10-26')).toEqual(['2026-10-25T00:30:00+00:00']);
      expect(shown('2026-03-29', '2026-03-30')).toEqual(['2026-03-29T01:30:00+00:00']);
    },
  );

  test('a TZID Intl does not know is read from its VTIMEZONE', () => {
    const text = NEW_YORK_WEEKLY.replace(/America\/New_York/g, 'Eastern Standard Time');
    const { events } = read(text, '2026-03-01', '2026-03-10', { zone: 'UTC' });
    expect(events.map((e) => e.start)).toEqual([
      '2026-03-02T14:00:00+00:00',
      '2026-03-09T13:00:00+00:00',
    ]);
  });

  test('a TZID without VTIMEZONE is read as the IANA zone, or else as floating with a note', () => {
    const notes: string[] = [];
    const text = vcalendar(
      vevent('tokyo@test', 'SUMMARY:Tokyo', 'DTSTART;TZID=Asia/Tokyo:20260310T090000'),
      vevent('mars@test', 'SUMMARY:Mars', 'DTSTART;TZID=Mars/Olympus:20260310T090000'),
    );
    const { events } = read(text, '2026-03-10', '2026-03-11', { notes });
    expect(events.map((e) => [e.summary, e.start])).toEqual([
      ['Tokyo', '2026-03-10T01:00:00+01:00'],
      ['Mars', '2026-03-10T09:00:00+01:00'],
    ]);
    expect(notes).toEqual([
      'unknown TZID without VTIMEZONE: read as floating time in the configured zone',
    ]);
  });

  test.each([
    ['Europe/Berlin', '2026-03-10T09:00:00+01:00'],
    ['America/Los_Angeles', '2026-03-10T09:00:00-07:00'],
  ])('a floating time is local time in the configured zone (%s)', (zone, start) => {
    const text = vcalendar(vevent('f@test', 'SUMMARY:Floating', 'DTSTART:20260310T090000'));
    expect(read(text, '2026-03-10', '2026-03-11', { zone }).events.map((e) => e.start)).toEqual([
      start,
    ]);
  });

  test('a UTC time is shown in the configured zone', () => {
    const text = vcalendar(vevent('u@test', 'SUMMARY:UTC', 'DTSTART:20260310T080000Z'));
    expect(read(text, '2026-03-10', '2026-03-11').events[0]?.start).toBe(
      '2026-03-10T09:00:00+01:00',
    );
  });

  test.each(['Pacific/Auckland', 'America/Los_Angeles', 'UTC'])(
    'an all-day multi-day event keeps its dates in %s',
    (zone) => {
      const inside = read(TRIP, '2026-03-12', '2026-03-13', { zone }).events;
      expect(inside.map((e) => [e.start, e.end, e.all_day])).toEqual([
        ['2026-03-10', '2026-03-13', true],
      ]);
      expect(inside[0]?.description).toBe('Bring the boots, and the poles');
      expect(read(TRIP, '2026-03-13', '2026-03-14', { zone }).events).toEqual([]);
      expect(read(TRIP, '2026-03-09', '2026-03-10', { zone }).events).toEqual([]);
    },
  );
});

describe('window edges', () => {
  const text = vcalendar(
    vevent(
      'late@test',
      'SUMMARY:Late party',
      'DTSTART;TZID=Europe/Berlin:20260309T220000',
      'DTEND;TZID=Europe/Berlin:20260310T020000',
    ),
    vevent(
      'dinner@test',
      'SUMMARY:Dinner',
      'DTSTART;TZID=Europe/Berlin:20260309T200000',
      'DTEND;TZID=Europe/Berlin:20260310T000000',
    ),
    vevent('reminder@test', 'SUMMARY:Reminder', 'DTSTART;TZID=Europe/Berlin:20260310T000000'),
    vevent('after@test', 'SUMMARY:After', 'DTSTART;TZID=Europe/Berlin:20260311T000000'),
  );

  test('an event that starts before the window and ends inside it is included', () => {
    const names = read(text, '2026-03-10', '2026-03-11').events.map((e) => e.summary);
    expect(names).toContain('Late party');
  });

  test('an event that ends exactly at the window start is not; a zero-length one at the start is', () => {
    const names = read(text, '2026-03-10', '2026-03-11').events.map((e) => e.summary);
    expect(names).toEqual(['Late party', 'Reminder']);
  });

  test('an event that starts exactly at the window end is not', () => {
    expect(read(text, '2026-03-10', '2026-03-11').events.map((e) => e.uid)).not.toContain(
      'after@test',
    );
  });

  test('no DTEND: a date lasts one day, a date-time no time; DURATION counts local days', () => {
    const more = vcalendar(
      newYorkVtimezone(),
      vevent('d@test', 'SUMMARY:Day', 'DTSTART;VALUE=DATE:20260307'),
      vevent(
        'p@test',
        'SUMMARY:Two days',
        'DTSTART;TZID=America/New_York:20260307T120000',
        'DURATION:P2D',
      ),
    );
    const { events } = read(more, '2026-03-07', '2026-03-10', { zone: 'America/New_York' });
    expect(events.map((e) => [e.summary, e.start, e.end])).toEqual([
      ['Day', '2026-03-07', '2026-03-08'],
      ['Two days', '2026-03-07T12:00:00-05:00', '2026-03-09T12:00:00-04:00'],
    ]);
  });
});
