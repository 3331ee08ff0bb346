import {
  InvalidInputError,
  DAY_MS,
  formatInstant,
  wallFromMs,
  wallMs,
  type Clock,
  type Wall,
} from '../../src/legion/index.js';
import { MAX_RANGE_DAYS, type CalendarReadInput } from './schema.js';

/** The range one call reads: `[startMs, endMs)`, and both ends as RFC 3339 in the clock's zone. */
export interface ReadWindow {
  readonly startMs: number;
  readonly endMs: number;
  readonly start: string;
  readonly end: string;
}

/** @default 7 days from start when neither `end` nor `days` is given. */
const DEFAULT_DAYS = 7;
/** A range may be this much longer than MAX_RANGE_DAYS days: a DST change adds an hour. */
const DST_SLACK_MS = 3_600_000;

const MOMENT_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The range a call asks for, seen from `now` in `clock`'s zone. `start` defaults to now,
 * the end to `start + days` (in local days, so a DST change does not shift it) or 7 days.
 * @throws InvalidInputError naming the field at fault.
 */
export function resolveWindow(
  input: Pick<CalendarReadInput, 'start' | 'end' | 'days'>,
  now: number,
  clock: Clock,
): ReadWindow {
  if (input.end !== undefined && input.days !== undefined) {
    throw invalid('days', 'give end or days, not both');
  }
  const startMs = input.start === undefined ? now : parseMoment(input.start, 'start', clock);
  const endMs =
    input.end === undefined
      ? addLocalDays(startMs, input.days ?? DEFAULT_DAYS, clock)
      : parseMoment(input.end, 'end', clock);
  const window = {
    startMs,
    endMs,
    start: formatInstant(startMs, clock),
    end: formatInstant(endMs, clock),
  };
  if (endMs <= startMs) {
    throw invalid(
      'end',
      `end (${window.end}) must be after start (${window.start}); end is exclusive: for one whole day give the next day as end, or days: 1`,
    );
  }
  if (endMs - startMs > MAX_RANGE_DAYS * DAY_MS + DST_SLACK_MS) {
    const span = ((endMs - startMs) / DAY_MS).toFixed(1);
    throw invalid('end', `the range spans ${span} days; at most ${MAX_RANGE_DAYS} per call`);
  }
  return window;
}

/**
 * One ISO 8601 moment: a date is local midnight, a date-time without offset is local time
 * (both in `clock`'s zone), one with `Z` or an offset is that instant.
 * @throws InvalidInputError for a malformed or impossible date (2026-02-30).
 */
export function parseMoment(text: string, field: string, clock: Clock): number {
  const m = MOMENT_RE.exec(text.trim());
  if (m === null) {
    throw invalid(field, `${JSON.stringify(text)} is not an ISO 8601 date or date-time`);
  }
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const wall: Wall = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s),
  };
  if (!isRealWall(wall)) throw invalid(field, `${JSON.stringify(text)} is not a real date or time`);
  const ms = frac === '' ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  if (zone === undefined) return clock.toInstant(wall) + ms;
  const offset = offsetMs(zone);
  if (offset === null) throw invalid(field, `${JSON.stringify(text)} has an impossible offset`);
  return wallMs(wall) - offset + ms;
}

/** `start` plus `days` local days (fractions allowed) in `clock`'s zone. */
function addLocalDays(startMs: number, days: number, clock: Clock): number {
  const sub = startMs - Math.floor(startMs / 1000) * 1000;
  const wall = clock.toWall(startMs - sub);
  return clock.toInstant(wallFromMs(wallMs(wall) + Math.round(days * DAY_MS))) + sub;
}

function isRealWall(w: Wall): boolean {
  const back = wallFromMs(wallMs(w));
  return (
    w.year >= 1 &&
    w.month >= 1 &&
    w.month <= 12 &&
    back.year === w.year &&
    back.month === w.month &&
    back.day === w.day &&
    w.hour <= 23 &&
    w.minute <= 59 &&
    w.second <= 59
  );
}

/** `Z` -> 0, `+01:00` / `-0530` -> milliseconds east of UTC; null when out of range. */
function offsetMs(zone: string): number | null {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes) * 60_000;
}

function invalid(path: string, message: string): InvalidInputError {
  return new InvalidInputError(`${path}: ${message}`, { details: [{ path, message }] });
}
