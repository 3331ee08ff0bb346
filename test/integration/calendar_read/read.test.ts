import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRadicale, type TestRadicale } from '../../helpers/radicale.js';
import {
  NEW_YORK_WEEKLY,
  STANDUP,
  TRIP,
  vcalendar,
  vevent,
} from '../../unit/calendar_read/fixtures.js';
import { startTool } from './harness.js';

/**
 * calendar_read against a real Radicale 3: alice has a "Work" and a "Family" calendar (and a
 * task list, which holds no events); bob has his own. Every object is iCalendar text this
 * file writes; Radicale filters by time range, the tool expands client-side.
 */

let dav: TestRadicale;
let base: Record<string, string>;
const DAY = 86_400_000;

/** Local date-time in Europe/Berlin, `days` from now (for the default window). */
function berlinStamp(daysFromNow: number): string {
  const d = new Date(Date.now() + daysFromNow * DAY);
  const p = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Berlin',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(d);
  return `${p.replace(/-/g, '')}T120000`;
}

beforeAll(async () => {
  dav = await startRadicale({ users: { alice: 'alice-pw', bob: 'bob-pw' } });
  base = {
    caldav_url: dav.url,
    username: 'alice',
    password: 'alice-pw',
    timezone: 'Europe/Berlin',
  };
  await dav.makeCalendar('alice', 'work', 'Work');
  await dav.makeCalendar('alice', 'family', 'Family');
  await dav.makeCalendar('alice', 'tasks', 'Tasks', { components: ['VTODO'] });
  await dav.makeCalendar('bob', 'secret', 'Secret');
  const work: [string, string][] = [
    ['standup', STANDUP],
    ['ny', NEW_YORK_WEEKLY],
    [
      'rent',
      vcalendar(
        vevent(
          'rent@test',
          'SUMMARY:Rent',
          'DTSTART;TZID=Europe/Berlin:20260105T100000',
          'DURATION:PT15M',
          'RRULE:FREQ=MONTHLY;COUNT=6',
          'DESCRIPTION:Transfer to the landlord',
        ),
      ),
    ],
    [
      'payroll',
      vcalendar(
        vevent(
          'payroll@test',
          'SUMMARY:Payroll',
          'DTSTART:20260115T080000Z',
          'DTEND:20260115T083000Z',
          'RRULE:FREQ=MONTHLY;BYMONTHDAY=15,-1;UNTIL=20260501T000000Z',
        ),
      ),
    ],
  ];
  const family: [string, string][] = [
    ['trip', TRIP],
    [
      'piano',
      vcalendar(
        vevent(
          'piano@test',
          'SUMMARY:Piano lesson',
          'DTSTART:20260311T170000',
          'DTEND:20260311T180000',
          'LOCATION:Music school',
        ),
      ),
    ],
    [
      'vet',
      vcalendar(
        vevent(
          'vet@test',
          'SUMMARY:Vet',
          'DTSTART;TZID=Europe/Berlin:20260304T090000',
          'DTEND;TZID=Europe/Berlin:20260304T093000',
          'RDATE;TZID=Europe/Berlin:20260318T090000,20260415T090000',
        ),
      ),
    ],
    [
      'night',
      vcalendar(
        vevent(
          'night@test',
          'SUMMARY:Night shift',
          'DTSTART;TZID=Europe/Berlin:20260228T220000',
          'DTEND;TZID=Europe/Berlin:20260301T060000',
        ),
      ),
    ],
    ['old', vcalendar(vevent('old@test', 'SUMMARY:Old', 'DTSTART:20260210T090000Z'))],
    ['future', vcalendar(vevent('future@test', 'SUMMARY:Future', 'DTSTART:20260510T090000Z'))],
    [
      'course',
      vcalendar(
        vevent(
          'course@test',
          'SUMMARY:Course',
          'DTSTART:20260105T170000Z',
          'RRULE:FREQ=WEEKLY;COUNT=3',
        ),
      ),
    ],
    [
      'yoga',
      vcalendar(
        vevent(
          'yoga@test',
          'SUMMARY:Yoga',
          'DTSTART;TZID=Europe/Berlin:20260413T180000',
          'DURATION:PT1H',
          'RRULE:FREQ=WEEKLY;COUNT=4',
        ),
        vevent(
          'yoga@test',
          'SUMMARY:Yoga (moved)',
          'RECURRENCE-ID;TZID=Europe/Berlin:20260420T180000',
          'DTSTART;TZID=Europe/Berlin:20260408T180000',
          'DURATION:PT1H',
        ),
      ),
    ],
    [
      'soon',
      vcalendar(
        vevent('soon@test', 'SUMMARY:Soon', `DTSTART;TZID=Europe/Berlin:${berlinStamp(1)}`),
      ),
    ],
    [
      'late',
      vcalendar(
        vevent('late@test', 'SUMMARY:Late', `DTSTART;TZID=Europe/Berlin:${berlinStamp(9)}`),
      ),
    ],
  ];
  for (const [name, ics] of work) await dav.putEvent('alice', 'work', name, ics);
  for (const [name, ics] of family) await dav.putEvent('alice', 'family', name, ics);
  await dav.putEvent(
    'bob',
    'secret',
    'bob',
    vcalendar(vevent('bob@test', 'SUMMARY:Bob only', 'DTSTART:20260310T090000Z')),
  );
}, 60_000);

afterAll(async () => {
  await dav?.stop();
});

const MARCH = { start: '2026-03-01', end: '2026-04-01', limit: 500 };

describe('reading March 2026 in Europe/Berlin', () => {
  test('every event overlapping the month, expanded and sorted, and nothing else', async () => {
    await using tool = await startTool(base);
    const result = await tool.call(MARCH);
    expect(result).toMatchObject({
      start: '2026-03-01T00:00:00+01:00',
      end: '2026-04-01T00:00:00+02:00',
      timezone: 'Europe/Berlin',
      truncated: false,
    });
    expect(result.events.map((e) => [e.summary, e.start, e.calendar])).toEqual([
      ['Night shift', '2026-02-28T22:00:00+01:00', 'Family'],
      ['Standup', '2026-03-02T09:00:00+01:00', 'Work'],
      ['New York call', '2026-03-02T15:00:00+01:00', 'Work'],
      ['Vet', '2026-03-04T09:00:00+01:00', 'Family'],
      ['Rent', '2026-03-05T10:00:00+01:00', 'Work'],
      ['New York call', '2026-03-09T14:00:00+01:00', 'Work'],
      ['Ski trip', '2026-03-10', 'Family'],
      ['Piano lesson', '2026-03-11T17:00:00+01:00', 'Family'],
      ['Payroll', '2026-03-15T09:00:00+01:00', 'Work'],
      ['New York call', '2026-03-16T14:00:00+01:00', 'Work'],
      ['Standup (moved)', '2026-03-17T14:00:00+01:00', 'Work'],
      ['Vet', '2026-03-18T09:00:00+01:00', 'Family'],
      ['New York call', '2026-03-23T14:00:00+01:00', 'Work'],
      ['Standup', '2026-03-30T09:00:00+02:00', 'Work'],
      ['Payroll', '2026-03-31T10:00:00+02:00', 'Work'],
    ]);
  });

  test('each event carries its end, flags, uid and texts', async () => {
    await using tool = await startTool(base);
    const { events } = await tool.call(MARCH);
    expect(events.find((e) => e.summary === 'Ski trip')).toEqual({
      summary: 'Ski trip',
      start: '2026-03-10',
      end: '2026-03-13',
      all_day: true,
      description: 'Bring the boots, and the poles',
      calendar: 'Family',
      recurring: false,
      uid: 'trip@test',
    });
    expect(events.find((e) => e.summary === 'Rent')).toMatchObject({
      end: '2026-03-05T10:15:00+01:00',
      all_day: false,
      recurring: true,
      uid: 'rent@test',
      description: 'Transfer to the landlord',
    });
    expect(events.find((e) => e.summary === 'Piano lesson')).toMatchObject({
      location: 'Music school',
      recurring: false,
    });
  });

  test('an occurrence moved into the window from a series that starts after it', async () => {
    await using tool = await startTool(base);
    const { events } = await tool.call({ start: '2026-04-06', end: '2026-04-12' });
    expect(events.map((e) => [e.summary, e.start])).toEqual([
      ['Yoga (moved)', '2026-04-08T18:00:00+02:00'],
    ]);
  });

  test('without start and end: now to 7 days on', async () => {
    await using tool = await startTool(base);
    const { events, start, end } = await tool.call({ calendars: ['Family'] });
    expect(events.map((e) => e.summary)).toEqual(['Soon']);
    expect(Date.parse(end) - Date.parse(start)).toBeGreaterThanOrEqual(7 * DAY - 3_600_000);
  });
});

describe('what caldav_url may name', () => {
  test.each([
    ['the principal', 'alice/', ['Family', 'Work']],
    ['one calendar', 'alice/family/', ['Family']],
  ])('%s (%s)', async (_what, path, names) => {
    await using tool = await startTool({ ...base, caldav_url: `${dav.url}${path}` });
    const { events } = await tool.call(MARCH);
    expect([...new Set(events.map((e) => e.calendar))].sort()).toEqual(names);
  });
});

describe('time zones', () => {
  test('09:00 New York stays 09:00 local while its offset goes from -05:00 to -04:00', async () => {
    await using tool = await startTool({ ...base, timezone: 'America/New_York' });
    const { events } = await tool.call({ ...MARCH, query: 'new york' });
    expect(events.map((e) => [e.start, e.end])).toEqual([
      ['2026-03-02T09:00:00-05:00', '2026-03-02T10:00:00-05:00'],
      ['2026-03-09T09:00:00-04:00', '2026-03-09T10:00:00-04:00'],
      ['2026-03-16T09:00:00-04:00', '2026-03-16T10:00:00-04:00'],
      ['2026-03-23T09:00:00-04:00', '2026-03-23T10:00:00-04:00'],
    ]);
  });

  test.each(['Pacific/Auckland', 'America/Los_Angeles'])(
    'the all-day trip keeps its dates in %s, and only its days match',
    async (timezone) => {
      await using tool = await startTool({ ...base, timezone });
      const inside = await tool.call({ start: '2026-03-12', days: 1, query: 'ski' });
      expect(inside.events.map((e) => [e.start, e.end, e.all_day])).toEqual([
        ['2026-03-10', '2026-03-13', true],
      ]);
      expect((await tool.call({ start: '2026-03-13', days: 1, query: 'ski' })).events).toEqual([]);
      expect((await tool.call({ start: '2026-03-09', days: 1, query: 'ski' })).events).toEqual([]);
    },
  );

  test('a floating time is read as local time of the configured zone', async () => {
    await using tool = await startTool({ ...base, timezone: 'America/Los_Angeles' });
    const { events } = await tool.call({ start: '2026-03-11', days: 1, query: 'piano' });
    expect(events.map((e) => e.start)).toEqual(['2026-03-11T17:00:00-07:00']);
  });

  test('a start with an offset is an instant; the answer is in the configured zone', async () => {
    await using tool = await startTool(base);
    const r = await tool.call({
      start: '2026-03-02T08:30:00-05:00',
      end: '2026-03-02T10:00:00-05:00',
    });
    expect([r.start, r.end]).toEqual(['2026-03-02T14:30:00+01:00', '2026-03-02T16:00:00+01:00']);
    expect(r.events.map((e) => e.summary)).toEqual(['New York call']);
  });

  test("without timezone the answer is in the host's zone", async () => {
    const { timezone: _, ...unzoned } = base;
    await using tool = await startTool(unzoned);
    const r = await tool.call(MARCH);
    expect(r.timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});

describe('calendars, query and limit', () => {
  test('calendars picks by name; task lists and other users are never listed', async () => {
    await using tool = await startTool(base);
    const { events } = await tool.call({ ...MARCH, calendars: ['Family'] });
    expect(new Set(events.map((e) => e.calendar))).toEqual(new Set(['Family']));
    expect(events).toHaveLength(5);
    const err = await tool.call({ ...MARCH, calendars: ['Secret'] }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'invalid_input',
      message: 'no calendar named "Secret"; the calendars are "Family", "Work"',
    });
  });

  test('calendar_names limits what the tool sees, as a comma list from the environment', async () => {
    await using tool = await startTool({ ...base, calendar_names: 'Work' });
    const { events } = await tool.call(MARCH);
    expect(new Set(events.map((e) => e.calendar))).toEqual(new Set(['Work']));
    await expect(tool.call({ ...MARCH, calendars: ['Family'] })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'no calendar named "Family"; the calendars are "Work"',
    });
  });

  test('query matches title, location or description in any case', async () => {
    await using tool = await startTool(base);
    const byPlace = await tool.call({ ...MARCH, query: 'MUSIC SCHOOL' });
    expect(byPlace.events.map((e) => e.summary)).toEqual(['Piano lesson']);
    const byText = await tool.call({ ...MARCH, query: 'landlord' });
    expect(byText.events.map((e) => e.summary)).toEqual(['Rent']);
    expect((await tool.call({ ...MARCH, query: 'nothing like this' })).events).toEqual([]);
  });

  test('limit keeps the earliest events and sets truncated', async () => {
    await using tool = await startTool(base);
    const r = await tool.call({ ...MARCH, limit: 3 });
    expect(r.events.map((e) => e.summary)).toEqual(['Night shift', 'Standup', 'New York call']);
    expect(r.truncated).toBe(true);
    const exact = await tool.call({ ...MARCH, limit: 15 });
    expect(exact.truncated).toBe(false);
  });

  test('max_occurrences caps one recurring event and marks the answer truncated', async () => {
    await using tool = await startTool({ ...base, max_occurrences: '2' });
    const r = await tool.call({ ...MARCH, calendars: ['Work'], query: 'new york' });
    expect(r.events).toHaveLength(2);
    expect(r.truncated).toBe(true);
  });

  test('a calendar created after the list was cached is found when named', async () => {
    await using tool = await startTool(base);
    await tool.call(MARCH); // caches the calendar list
    await dav.makeCalendar('alice', 'garden', 'Garden');
    await dav.putEvent(
      'alice',
      'garden',
      'seed',
      vcalendar(vevent('seed@test', 'SUMMARY:Sow tomatoes', 'DTSTART;VALUE=DATE:20260320')),
    );
    const { events } = await tool.call({ ...MARCH, calendars: ['Garden'] });
    expect(events.map((e) => [e.summary, e.start, e.calendar])).toEqual([
      ['Sow tomatoes', '2026-03-20', 'Garden'],
    ]);
  });
});
