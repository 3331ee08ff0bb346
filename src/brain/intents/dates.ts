/**
 * The `date_range` slot: spoken ranges ("today", "this week", "friday") to `[start, end)`
 * in an IANA time zone, at local midnight boundaries. Uses Intl only. Weeks start on Monday.
 */

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
export interface DateRange {
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
const DAY_MS = 86_400_000;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** Formatters are costly to build; keep one per zone (a bounded handful in practice). */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 64;

/** True when `timeZone` is an IANA zone name this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The range a phrase names, seen from `now` in `timeZone`. `timeZone` must be valid. */
export function dateRange(phrase: DatePhrase, now: Date, timeZone: string): DateRange {
  const today = localParts(now.getTime(), timeZone);
  const weekday = WEEKDAYS.indexOf(today.weekday);
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
  return formatInstant(localToInstant(date, hour, timeZone), timeZone);
}

/**
 * The instant a local wall time names. In a DST overlap the earlier instant; in a gap (a zone
 * whose clocks skip midnight) the instant the gap ends, which is when that local day begins.
 */
function localToInstant(date: LocalDate, hour: number, timeZone: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour);
  const offsets = [offsetAt(wall - DAY_MS, timeZone), offsetAt(wall + DAY_MS, timeZone)];
  const candidates = offsets.map((o) => wall - o);
  const valid = candidates.filter((t, k) => offsetAt(t, timeZone) === offsets[k]);
  return valid.length > 0 ? Math.min(...valid) : Math.max(...candidates);
}

/** The zone's UTC offset at an instant, in milliseconds (local minus UTC). */
function offsetAt(instant: number, timeZone: string): number {
  const p = localParts(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

function formatInstant(instant: number, timeZone: string): string {
  const p = localParts(instant, timeZone);
  const offsetMinutes = Math.round(offsetAt(instant, timeZone) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
  const time = `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  return `${date}T${time}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

interface Parts extends LocalDate {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly weekday: string;
}

function localParts(instant: number, timeZone: string): Parts {
  const fields: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) fields[part.type] = part.value;
  const num = (key: string) => Number(fields[key]);
  return {
    year: num('year'),
    month: num('month'),
    day: num('day'),
    hour: num('hour') % 24,
    minute: num('minute'),
    second: num('second'),
    weekday: (fields.weekday ?? '').toLowerCase(),
  };
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}
