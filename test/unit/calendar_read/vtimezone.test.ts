import ICAL from 'ical.js';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { intlClock, UTC_CLOCK } from '../../../src/legion/thread.js';
import {
  MAX_CHANGES_PER_YEAR,
  UnusableZoneError,
  VtimezoneRules,
  ZONE_MAX_STEPS,
} from '../../../workers/calendar_read/vtimezone.js';
import { ZoneBook } from '../../../workers/calendar_read/zones.js';
import { berlinVtimezone, everySecondVtimezone, newYorkVtimezone, vcalendar } from './fixtures.js';

/** The VTIMEZONE component of a VTIMEZONE block's text. */
function component(vtimezone: string): ICAL.Component {
  const cal = new ICAL.Component(ICAL.parse(vcalendar(vtimezone)) as unknown[]);
  return cal.getFirstSubcomponent('vtimezone')!;
}

/** A VTIMEZONE with the given observance lines. */
function zone(tzid: string, ...observances: string[][]): string {
  return ['BEGIN:VTIMEZONE', `TZID:${tzid}`, ...observances.flat(), 'END:VTIMEZONE'].join('\r\n');
}

function observance(kind: 'STANDARD' | 'DAYLIGHT', from: string, to: string, ...lines: string[]) {
  return [`BEGIN:${kind}`, `TZOFFSETFROM:${from}`, `TZOFFSETTO:${to}`, ...lines, `END:${kind}`];
}

const HOUR = 3_600_000;
const unusable = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    if (err instanceof UnusableZoneError) return err;
    throw err;
  }
  throw new Error('expected UnusableZoneError');
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('VTIMEZONE offsets, computed with bounds', () => {
  test('Berlin agrees with Intl every 6 hours of 2000-2040, for a few steps a year', () => {
    vi.spyOn(ICAL.Timezone.prototype, '_ensureCoverage').mockImplementation(() => {
      throw new Error('ical.js zone expansion was called');
    });
    const rules = new VtimezoneRules(component(berlinVtimezone()));
    const intl = intlClock('Europe/Berlin');
    const offset = (t: number) => intl.toWall(t);
    for (let t = Date.parse('2000-01-01T00:00:00Z'); t < Date.parse('2041-01-01'); t += 6 * HOUR) {
      const wall = offset(t); // once: Intl formatting is most of this test's time
      const expected = Date.UTC(
        wall.year,
        wall.month - 1,
        wall.day,
        wall.hour,
        wall.minute,
        wall.second,
      );
      expect(rules.offsetAt(t), new Date(t).toISOString()).toBe(expected - t);
    }
    // two rules, 41 years: each year costs its own expansion only, about 200 steps
    expect(rules.steps).toBeLessThan(41 * 250);
  });

  test('the changes themselves, to the second, and before the first onset', () => {
    const rules = new VtimezoneRules(component(berlinVtimezone()));
    expect(rules.offsetAt(Date.parse('2026-03-29T00:59:59Z'))).toBe(HOUR);
    expect(rules.offsetAt(Date.parse('2026-03-29T01:00:00Z'))).toBe(2 * HOUR);
    expect(rules.offsetAt(Date.parse('2026-10-25T00:59:59Z'))).toBe(2 * HOUR);
    expect(rules.offsetAt(Date.parse('2026-10-25T01:00:00Z'))).toBe(HOUR);
    // before DTSTART (2000-03-26) of the first onset: its TZOFFSETFROM
    expect(rules.offsetAt(Date.parse('1990-07-01T00:00:00Z'))).toBe(HOUR);
  });

  test('a rule that ended (UNTIL) and its successor: the old US rules, then the 2007 ones', () => {
    const text = zone(
      'US/Eastern',
      observance(
        'DAYLIGHT',
        '-0500',
        '-0400',
        'DTSTART:19870405T020000',
        'RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060402T070000Z',
      ),
      observance(
        'STANDARD',
        '-0400',
        '-0500',
        'DTSTART:19671029T020000',
        'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;UNTIL=20061029T060000Z',
      ),
      observance(
        'DAYLIGHT',
        '-0500',
        '-0400',
        'DTSTART:20070311T020000',
        'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
      ),
      observance(
        'STANDARD',
        '-0400',
        '-0500',
        'DTSTART:20071104T020000',
        'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
      ),
    );
    const clock = new VtimezoneRules(component(text)).clock;
    const ny = intlClock('America/New_York');
    for (const iso of [
      '2005-04-03T06:59:59Z',
      '2005-04-03T07:00:00Z',
      '2005-10-30T06:00:00Z',
      '2006-03-20T12:00:00Z',
      '2026-03-08T07:00:00Z',
      '2026-03-08T06:59:59Z',
      '2026-11-01T06:00:00Z',
    ]) {
      expect(clock.toWall(Date.parse(iso)), iso).toEqual(ny.toWall(Date.parse(iso)));
    }
  });

  test('dated changes (RDATE, a DTSTART with no rule) are read as listed', () => {
    const text = zone(
      'Lists',
      observance('STANDARD', '+0300', '+0200', 'DTSTART:19900101T000000'),
      observance(
        'DAYLIGHT',
        '+0200',
        '+0300',
        'DTSTART:20100328T030000',
        'RDATE:20110327T030000,20120325T010000Z',
      ),
      observance('STANDARD', '+0300', '+0200', 'DTSTART:20101031T040000', 'RDATE:20111030T040000'),
    );
    const rules = new VtimezoneRules(component(text));
    expect(rules.offsetAt(Date.parse('2005-06-01T00:00:00Z'))).toBe(2 * HOUR);
    expect(rules.offsetAt(Date.parse('2010-06-01T00:00:00Z'))).toBe(3 * HOUR);
    expect(rules.offsetAt(Date.parse('2010-12-01T00:00:00Z'))).toBe(2 * HOUR);
    expect(rules.offsetAt(Date.parse('2011-03-27T00:59:59Z'))).toBe(2 * HOUR);
    expect(rules.offsetAt(Date.parse('2011-03-27T01:00:00Z'))).toBe(3 * HOUR);
    expect(rules.offsetAt(Date.parse('2012-03-25T01:00:00Z'))).toBe(3 * HOUR); // a UTC RDATE
    // a decade with no change at all: the last one's offset
    expect(rules.offsetAt(Date.parse('2030-06-01T00:00:00Z'))).toBe(3 * HOUR);
  });

  test('New York, from the fixtures, is read the same through a clock', () => {
    const clock = new VtimezoneRules(component(newYorkVtimezone())).clock;
    const ny = intlClock('America/New_York');
    const wall = { year: 2026, month: 3, day: 9, hour: 9, minute: 0, second: 0 };
    expect(clock.toInstant(wall)).toBe(ny.toInstant(wall));
  });
});

describe('bounds of a VTIMEZONE', () => {
  test('rules that change every second from 1900 stop within the bound on changes', () => {
    const rules = new VtimezoneRules(component(everySecondVtimezone('Europe/Berlin')));
    const err = unusable(() => rules.offsetAt(Date.parse('2026-03-10T08:00:00Z')));
    expect(err).toMatchObject({ tzid: 'Europe/Berlin', bound: 'changes' });
    expect(err.message).toBe(
      `VTIMEZONE "Europe/Berlin" changes more than ${MAX_CHANGES_PER_YEAR} times a year`,
    );
    expect(rules.steps).toBeLessThanOrEqual(2 * (MAX_CHANGES_PER_YEAR + 1));
  });

  test('a rule whose parts never match stops at the step bound', () => {
    const text = zone(
      'Never',
      observance(
        'DAYLIGHT',
        '+0100',
        '+0200',
        'DTSTART:19000101T000000',
        'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      ),
    );
    const rules = new VtimezoneRules(component(text));
    const err = unusable(() => rules.offsetAt(Date.parse('2026-03-10T08:00:00Z')));
    expect(err).toMatchObject({ bound: 'steps' });
    expect(rules.steps).toBe(ZONE_MAX_STEPS);
  });

  test('a rule every second that BY-parts thin to once a year ends at the step bound', () => {
    const text = zone(
      'Thin',
      observance(
        'DAYLIGHT',
        '+0100',
        '+0200',
        'DTSTART:19000101T000000',
        'RRULE:FREQ=SECONDLY;BYMONTH=1;BYMONTHDAY=1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
      ),
    );
    const rules = new VtimezoneRules(component(text), { maxSteps: 5000 });
    expect(unusable(() => rules.offsetAt(Date.parse('2026-03-10T08:00:00Z')))).toMatchObject({
      bound: 'steps',
    });
    expect(rules.steps).toBe(5000);
  });

  test('over 1,000 dated changes (RDATE) are refused when the zone is read', () => {
    const rdates = Array.from(
      { length: 1001 },
      (_, i) =>
        `RDATE:${1971 + Math.floor(i / 12)}${String((i % 12) + 1).padStart(2, '0')}01T000000`,
    );
    const lines = observance('STANDARD', '+0000', '+0100', 'DTSTART:19700101T000000', ...rdates);
    expect(unusable(() => new VtimezoneRules(component(zone('Odd', lines))))).toMatchObject({
      bound: 'changes',
      message: 'VTIMEZONE "Odd" lists more than 1000 dated changes',
    });
  });

  test("one call's zones share a budget: past it, the next zone falls back", () => {
    const notes: string[] = [];
    const book = new ZoneBook({
      local: UTC_CLOCK,
      note: (message) => notes.push(message),
      callMaxSteps: 300,
    });
    const t = Date.parse('2026-07-01T12:00:00Z');
    const berlin = book.clockFor(component(berlinVtimezone()), 'Europe/Berlin');
    expect(berlin.toWall(t).hour).toBe(14);
    const costly = zone(
      'Costly Zone',
      observance(
        'DAYLIGHT',
        '+0100',
        '+0200',
        'DTSTART:20000101T000000',
        'RRULE:FREQ=HOURLY;BYHOUR=3;BYMONTH=1',
      ),
    );
    const clock = book.clockFor(component(costly), 'Costly Zone');
    expect(() => clock.toWall(t)).toThrow(UnusableZoneError);
    expect(book.steps).toBeLessThanOrEqual(300);
    // read again (as the object is): the configured zone, with a note saying so
    expect(book.clockFor(component(costly), 'Costly Zone')).toBe(UTC_CLOCK);
    expect(notes).toEqual([
      'VTIMEZONE broke a bound and is not used: its times are read in the configured zone',
    ]);
  });
});
