import { z } from 'zod';
import { compileGlob, isGlob } from '../glob.js';
import { show } from '../show.js';
import { typedKey, type InputCheck, type ToolMatcher } from './types.js';

const DAY_MS = 86_400_000;
/** ISO 8601 date or date-time, the only forms `start` and `end` are read in. */
const ISO_DATE_RE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * `calendars`: the call must name the calendars it reads (`input.calendars`), each one listed
 * here (`*` and `?` globs allowed). A call that names none would read every calendar: denied.
 */
const calendars = typedKey({
  summary: 'input.calendars must name only these calendars (globs allowed)',
  schema: z.array(z.string().min(1)).min(1),
  governs: ['calendars'],
  compile: (names) => {
    const exact = new Set(names.filter((n) => !isGlob(n)));
    const globs = names.filter(isGlob).map((g) => compileGlob(g));
    const listed = names.join(', ');
    const check: InputCheck = (input) => {
      const asked = input.calendars;
      if (asked === undefined) return `input.calendars is missing; name one of ${listed}`;
      if (!Array.isArray(asked) || asked.length === 0) {
        return `input.calendars must be a non-empty list, got ${show(asked)}`;
      }
      for (const name of asked as unknown[]) {
        if (typeof name !== 'string' || !(exact.has(name) || globs.some((re) => re.test(name)))) {
          return `calendar ${show(name)} is not one of ${listed}`;
        }
      }
      return null;
    };
    return { check };
  },
});

/**
 * `max_range_days`: the range read (`days`, or `start` (default now) to `end`) may span at
 * most this many days. A call that bounds its range by neither `days` nor `end` is denied: the
 * policy cannot know the worker's default.
 */
const maxRangeDays = typedKey({
  summary: 'the range read (days, or start..end) may span at most this many days',
  schema: z.int().min(1).max(3660),
  governs: ['start', 'end', 'days'],
  compile: (max) => ({ check: rangeCheck(max) }),
});

function rangeCheck(max: number): InputCheck {
  return (input, now) => {
    const { days, start, end } = input;
    if (days === undefined && end === undefined) {
      return `input must bound the range with days or end (at most max_range_days ${max})`;
    }
    if (days !== undefined) {
      if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0) {
        return `input.days must be a positive number, got ${show(days)}`;
      }
      if (days > max) return `input.days ${days} is above max_range_days ${max}`;
    }
    if (end === undefined) return null;
    const from = start === undefined ? now() : isoTime(start);
    const to = isoTime(end);
    if (from === null) return `input.start must be an ISO 8601 date, got ${show(start)}`;
    if (to === null) return `input.end must be an ISO 8601 date, got ${show(end)}`;
    if (to < from) return 'input.end is before input.start';
    const span = (to - from) / DAY_MS;
    return span <= max
      ? null
      : `the range spans ${span.toFixed(1)} days, above max_range_days ${max}`;
  };
}

function isoTime(value: unknown): number | null {
  if (typeof value !== 'string' || !ISO_DATE_RE.test(value.trim())) return null;
  const t = Date.parse(value.trim());
  return Number.isFinite(t) ? t : null;
}

/** calendar_read (CalDAV): `{calendars?, start?, end?, days?, query?, limit?}`. */
export const calendarReadMatcher: ToolMatcher = {
  tool: 'calendar_read',
  fields: ['calendars', 'start', 'end', 'days', 'query', 'limit'],
  keys: { calendars, max_range_days: maxRangeDays },
};
