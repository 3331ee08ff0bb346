/**
 * The `date_range` slot: spoken ranges ("today", "this week", "friday") to `[start, end)`
 * in an IANA time zone, at local midnight boundaries. Weeks start on Monday. Wall-clock time
 * comes from the one time-zone helper (`src/clock/wall-clock.ts`).
 */
import { formatInstant, intlClock } from '../../clock/index.js';

/** The phrases a `date_range` slot understands, lowercase. */
export const DATE_PHRASES = [
  'today',
  'tonight',
  'tomorrow',
  'yesterday',
  'this week',
  'next week',
  'last week',
  'this weekend',
  'next weekend',
  'this month',
  'next month',
  'last month',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type DatePhrase = (typeof DATE_PHRASES)[number];

/** A range of local time: `start` inclusive, `end` exclusive, both RFC 3339 with offset. */
interface DateRange {
  readonly start: string;
  readonly end: string;
}

/** A local calendar date; `month` 1-12. */
interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** Where "tonight" starts, local hour. */
const TONIGHT_HOUR = 18;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** The range a phrase names, seen from `now` in `timeZone`. `timeZone` must be valid. */
export function dateRange(phrase: DatePhrase, now: Date, timeZone: string): DateRange {
  const today = intlClock(timeZone).toWall(now.getTime());
  const weekday = (new Date(Date.UTC(today.year, today.month - 1, today.day)).getUTCDay() + 6) % 7;
  const day = (offset: number, hour = 0) => boundary(addDays(today, offset), hour, timeZone);
  switch (phrase) {
    case 'today':
      return { start: day(0), end: day(1) };
    case 'tonight':
      return { start: day(0, TONIGHT_HOUR), end: day(1) };
    case 'tomorrow':
      return { start: day(1), end: day(2) };
    case 'yesterday':
      return { start: day(-1), end: day(0) };
    case 'this week':
      return { start: day(-weekday), end: day(7 - weekday) };
    case 'next week':
      return { start: day(7 - weekday), end: day(14 - weekday) };
    case 'last week':
      return { start: day(-7 - weekday), end: day(-weekday) };
    case 'this weekend':
      return { start: day(5 - weekday), end: day(7 - weekday) };
    case 'next weekend':
      return { start: day(12 - weekday), end: day(14 - weekday) };
    case 'this month':
      return monthRange(today, 0, timeZone);
    case 'next month':
      return monthRange(today, 1, timeZone);
    case 'last month':
      return monthRange(today, -1, timeZone);
    default: {
      // A weekday name: the next such day, today included.
      const ahead = (WEEKDAYS.indexOf(phrase.slice(0, 3)) - weekday + 7) % 7;
      return { start: day(ahead), end: day(ahead + 1) };
    }
  }
}

function monthRange(today: LocalDate, offset: number, timeZone: string): DateRange {
  const first = (k: number): LocalDate => {
    const d = new Date(Date.UTC(today.year, today.month - 1 + k, 1));
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: 1 };
  };
  return {
    start: boundary(first(offset), 0, timeZone),
    end: boundary(first(offset + 1), 0, timeZone),
  };
}

function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** `hour`:00 local on `date`, as RFC 3339 with the zone's offset at that instant. */
function boundary(date: LocalDate, hour: number, timeZone: string): string {
  const clock = intlClock(timeZone);
  return formatInstant(clock.toInstant({ ...date, hour, minute: 0, second: 0 }), clock);
}
