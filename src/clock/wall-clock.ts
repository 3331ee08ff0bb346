/**
 * Wall-clock time and IANA time zones with Intl only: a local time to the instant it names
 * and back, and RFC 3339 with the zone's offset at an instant. A {@link Clock} is one way of
 * reading wall times (an IANA zone, UTC, or a VTIMEZONE in calendar_read's expand). The one
 * time-zone helper of the config (`brain.timezone`), the brain's date phrases ("this week")
 * and the calendar_read worker (through the SDK).
 */

/** A local date and time; `month` 1-12. */
export interface Wall {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** Reads wall times in one zone. */
export interface Clock {
  /** The zone's name, for logs and for the output's `timezone`. */
  readonly name: string;
  /**
   * The instant (epoch ms) a wall time names. In a DST overlap the earlier one; in a gap, the
   * time moved forward by the gap (RFC 5545 3.3.5: the offset before the gap applies).
   */
  toInstant(wall: Wall): number;
  /** The wall time at an instant. */
  toWall(instant: number): Wall;
}

export const DAY_MS = 86_400_000;

/** Formatters are costly to build; keep one per zone and format (a bounded handful in practice). */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 64;

/** True when `timeZone` is an IANA zone name this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  if (timeZone === 'UTC') return true; // no ICU for it (see intlClock)
  if (timeZone.trim() === '') return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The host's zone (`TZ`, else the system's), `UTC` when the runtime cannot tell. */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Wall times as UTC milliseconds: the arithmetic of a calendar with no zone. */
export function wallMs(w: Wall): number {
  if (w.year < 0 || w.year > 99) {
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  }
  // Date.UTC reads years 0-99 as 1900-1999
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime();
}

export function wallFromMs(ms: number): Wall {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

export const UTC_CLOCK: Clock = Object.freeze({
  name: 'UTC',
  toInstant: wallMs,
  toWall: wallFromMs,
});

/**
 * A clock from the zone's UTC offset at each instant (ms, local minus UTC). A wall time is the
 * instant whose offset agrees: in a DST overlap the earlier of two (RFC 5545 3.3.5: the first
 * occurrence); in a gap, the time moved forward by the gap (the offset before it applies).
 */
export function offsetClock(
  name: string,
  offsetAt: (instant: number) => number,
  toWall: (instant: number) => Wall = (t) => {
    const whole = Math.floor(t / 1000) * 1000;
    return wallFromMs(whole + offsetAt(whole));
  },
): Clock {
  return Object.freeze({
    name,
    toWall,
    toInstant: (wall: Wall) => {
      const local = wallMs(wall);
      const offsets = [offsetAt(local - DAY_MS), offsetAt(local + DAY_MS)];
      const candidates = offsets.map((o) => local - o);
      const valid = candidates.filter((t, k) => offsetAt(t) === offsets[k]);
      return valid.length > 0 ? Math.min(...valid) : Math.max(...candidates);
    },
  });
}

const clocks = new Map<string, Clock>();

/**
 * The clock of an IANA zone; `timeZone` must be valid ({@link isTimeZone}). `UTC` is
 * {@link UTC_CLOCK}, the same answers without ICU: a first formatter maps about 7 MiB of
 * ICU's date data, which the brain's start-up check of its intent examples (in UTC) would
 * otherwise hold for good (ADR 0048).
 */
export function intlClock(timeZone: string): Clock {
  if (timeZone === 'UTC') return UTC_CLOCK;
  let clock = clocks.get(timeZone);
  if (clock === undefined) {
    clock = offsetClock(
      timeZone,
      (instant) => offsetAt(instant, timeZone),
      (instant) => localParts(instant, timeZone),
    );
    if (clocks.size >= MAX_FORMATTERS) clocks.clear();
    clocks.set(timeZone, clock);
  }
  return clock;
}

/** The zone's UTC offset at an instant, in milliseconds (local minus UTC). */
function offsetAt(instant: number, timeZone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallMs(localParts(whole, timeZone)) - whole;
}

/** `2026-03-09T14:00:00+01:00`: the instant as wall time in `clock`, with its offset. */
export function formatInstant(instant: number, clock: Clock): string {
  const whole = Math.floor(instant / 1000) * 1000;
  const wall = clock.toWall(whole);
  const offsetMinutes = Math.round((wallMs(wall) - whole) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${formatWall(wall)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The moment as a person reads it in one zone (the model's prompt, the offline clock reply). */
export interface SpokenNow {
  /** `Saturday`. */
  readonly weekday: string;
  /** `2026-12-05`. */
  readonly date: string;
  /** `5 December 2026`. */
  readonly longDate: string;
  /** `14:05` (24-hour). */
  readonly time: string;
  /** `UTC+01:00` (`UTC+00:00` for UTC). */
  readonly offset: string;
}

/** `now` in `timeZone` (valid, {@link isTimeZone}), in English words and 24-hour time. */
export function spokenNow(now: Date, timeZone: string): SpokenNow {
  const format = formatter(timeZone, 'spoken');
  const p: Record<string, string> = {};
  for (const part of format.formatToParts(now)) p[part.type] = part.value;
  const offset = (p.timeZoneName ?? 'GMT').replace('GMT', 'UTC');
  const wall = intlClock(timeZone).toWall(Math.floor(now.getTime() / 1000) * 1000);
  return {
    weekday: p.weekday ?? '',
    date: formatDate(wall),
    longDate: `${p.day} ${p.month} ${p.year}`,
    time: `${p.hour}:${p.minute}`,
    offset: offset === 'UTC' ? 'UTC+00:00' : offset,
  };
}

/** `2026-03-09T14:00:00` (no offset). */
function formatWall(w: Wall): string {
  return `${formatDate(w)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}

/** `2026-03-09`. */
export function formatDate(d: Pick<Wall, 'year' | 'month' | 'day'>): string {
  return `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function localParts(instant: number, timeZone: string): Wall {
  const fields: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) fields[part.type] = part.value;
  const num = (key: string) => Number(fields[key]);
  const era = fields.era === 'BC' || fields.era === 'B' ? -1 : 1;
  return {
    year: era === 1 ? num('year') : 1 - num('year'),
    month: num('month'),
    day: num('day'),
    hour: num('hour') % 24,
    minute: num('minute'),
    second: num('second'),
  };
}

/** What both formats share: 24-hour time to the minute, the year in full. */
const HOURS = { hourCycle: 'h23', year: 'numeric', hour: '2-digit', minute: '2-digit' } as const;

/** `parts`: the numeric fields {@link localParts} reads; `spoken`: {@link spokenNow}'s words. */
const FORMATS = {
  parts: ['en-US', { ...HOURS, era: 'short', month: '2-digit', day: '2-digit', second: '2-digit' }],
  spoken: [
    'en-GB',
    { ...HOURS, weekday: 'long', month: 'long', day: 'numeric', timeZoneName: 'longOffset' },
  ],
} as const satisfies Record<string, readonly [string, Intl.DateTimeFormatOptions]>;

/** One formatter per zone and format, kept: building one costs more than the words it gives. */
function formatter(timeZone: string, format: keyof typeof FORMATS = 'parts'): Intl.DateTimeFormat {
  const key = `${format} ${timeZone}`;
  let f = formatters.get(key);
  if (f === undefined) {
    const [locale, options] = FORMATS[format];
    f = new Intl.DateTimeFormat(locale, { timeZone, ...options });
    if (formatters.size >= 2 * MAX_FORMATTERS) formatters.clear();
    formatters.set(key, f);
  }
  return f;
}
