import ICAL from 'ical.js';
import {
  CaesarError,
  DAY_MS,
  formatDate,
  wallFromMs,
  wallMs,
  type Clock,
  type Wall,
} from '../../src/legion/thread.js';
import type { EventSeries, VEvent, When } from './ics.js';
import {
  boundedIterator,
  DEFAULT_MAX_STEPS,
  floatingTime,
  skipAhead,
  StepBudget,
  StepBudgetExceeded,
  wallOf,
  withImplicitParts,
} from './recur.js';
import { UnusableZoneError } from './vtimezone.js';

/**
 * One event's occurrences in a window: DTSTART, the RRULEs (through ical.js, bounded, see
 * recur.ts), RDATEs (dates, date-times, periods), less EXDATEs, with RECURRENCE-ID overrides
 * replacing or cancelling (STATUS:CANCELLED) the occurrence they name, wherever they move it.
 * An occurrence is in the window when it overlaps it: it starts before the window ends and
 * ends after it starts (a zero-length one: starts inside it).
 */

export interface Occurrence {
  readonly uid: string;
  readonly summary: string | undefined;
  readonly location: string | undefined;
  readonly description: string | undefined;
  readonly recurring: boolean;
  readonly allDay: boolean;
  readonly startMs: number;
  readonly endMs: number;
  /** All-day occurrences: the dates as written, end exclusive (`2026-03-10`). */
  readonly startDate?: string;
  readonly endDate?: string;
}

interface ExpandOptions {
  /** `[startMs, endMs)`. */
  readonly window: { readonly startMs: number; readonly endMs: number };
  /** The configured zone: all-day dates start and end at its midnights. */
  readonly local: Clock;
  /** Occurrences of one event in one answer (`max_occurrences`). */
  readonly maxOccurrences: number;
  /** @default DEFAULT_MAX_STEPS ical.js iteration steps per event. */
  readonly maxSteps?: number;
  /** Epoch ms; expansion past it throws `timeout`. */
  readonly deadline?: number;
  readonly note?: (message: string, fields: Record<string, unknown>) => void;
}

interface Expansion {
  readonly occurrences: Occurrence[];
  /** True when `maxOccurrences` or the step bound cut the expansion short. */
  readonly capped: boolean;
  /** ical.js iteration steps spent, at most `maxSteps`. */
  readonly steps: number;
}

/** How long each occurrence lasts: nominal days (wall clock) plus exact milliseconds. */
interface Shape {
  readonly days: number;
  readonly ms: number;
}

export function expandSeries(series: EventSeries, opts: ExpandOptions): Expansion {
  const out: Occurrence[] = [];
  const { master } = series;
  const allDay = master?.start.date ?? false;
  const replaced = keySet(
    series.overrides.map((o) => o.recurrenceId!),
    allDay,
  );
  let capped = false;
  const budget = new StepBudget(opts.maxSteps ?? DEFAULT_MAX_STEPS, opts.deadline);
  if (master !== undefined && !master.cancelled) {
    capped = expandMaster(master, series.overrides.length > 0, replaced, out, budget, opts);
  }
  for (const o of series.overrides) {
    if (o.cancelled) continue;
    const occurrence = occurrenceOf(o, o.start, shapeOf(o, master), undefined, opts, master);
    if (overlaps(occurrence, opts.window)) out.push(occurrence);
  }
  return { occurrences: out, capped, steps: budget.steps };
}

/** Adds the master's own occurrences to `out`; true when a bound cut them short. */
function expandMaster(
  master: VEvent,
  hasOverrides: boolean,
  replaced: ReadonlySet<string>,
  out: Occurrence[],
  budget: StepBudget,
  opts: ExpandOptions,
): boolean {
  const recurring = master.rrules.length > 0 || master.rdates.length > 0 || hasOverrides;
  const allDay = master.start.date;
  const excluded = keySet(master.exdates, allDay);
  const shape = shapeOf(master, undefined);
  const seen = new Set<string>();
  let count = 0;
  let capped = false;
  /** Adds one candidate; false once the bound is reached. */
  const add = (start: When, end: When | undefined): boolean => {
    const keys = keysOf(start, allDay);
    if (seen.has(keys[0]!)) return true;
    seen.add(keys[0]!);
    if (keys.some((k) => excluded.has(k) || replaced.has(k))) return true;
    const o = occurrenceOf(master, start, shape, end, opts, undefined, recurring);
    if (!overlaps(o, opts.window)) return true;
    if (count >= opts.maxOccurrences) {
      capped = true;
      return false;
    }
    count += 1;
    out.push(o);
    return true;
  };
  if (!add(master.start, undefined)) return true;
  for (const r of master.rdates) if (!add(r.start, r.end)) return true;
  for (const rule of master.rrules) {
    try {
      iterateRule(rule, master, shape, budget, add, opts);
    } catch (err) {
      // the deadline, and a VTIMEZONE that broke its bound (its object is read again)
      if (err instanceof CaesarError || err instanceof UnusableZoneError) throw err;
      capped ||= err instanceof StepBudgetExceeded;
      opts.note?.(
        err instanceof StepBudgetExceeded
          ? 'recurrence expansion bound reached; later occurrences left out'
          : 'RRULE ical.js cannot iterate ignored',
        {
          uid: master.uid,
          rrule: rule.toString(),
          error: err instanceof Error ? err.message : String(err),
        },
      );
    }
    if (capped) break;
  }
  return capped;
}

/**
 * Feeds the rule's occurrences to `add` until one starts at or after the window's end, or
 * after UNTIL. Iteration runs on floating wall time; UNTIL is compared as an instant, so no
 * wall-clock conversion of it is needed.
 */
function iterateRule(
  rule: ICAL.Recur,
  master: VEvent,
  shape: Shape,
  budget: StepBudget,
  add: (start: When, end: When | undefined) => boolean,
  opts: ExpandOptions,
): void {
  const { clock, date } = master.start;
  const r = rule.clone();
  const untilMs = r.until ? untilInstant(r.until, date, clock) : Number.POSITIVE_INFINITY;
  r.until = null;
  withImplicitParts(r, master.start.wall);
  const skip = skipAhead(r, master.start.wall, skipTarget(clock, shape, date, opts.window.startMs));
  if (skip.kind === 'exhausted') return;
  if (skip.kind === 'moved' && skip.count !== null) r.count = skip.count;
  const first = skip.kind === 'moved' ? skip.start : master.start.wall;
  const stopMs = Math.min(opts.window.endMs, untilMs + 1);
  const it = boundedIterator(r, floatingTime(first, date), budget);
  for (let t = it.next(); t; t = it.next()) {
    const start: When = { wall: wallOf(t), date, clock };
    if (clock.toInstant(start.wall) >= stopMs) return;
    if (!add(start, undefined)) return;
  }
}

/**
 * The wall time (in the series' clock) before which no occurrence can overlap a window that
 * starts at `windowStart`, so iteration may start there: an occurrence overlaps once its end,
 * `toInstant(start + days) + ms`, is after the window's start (a zero-length one: its start
 * at it). So its `start + days` is at least the wall time at `windowStart - ms`, less the
 * fall of the clock's offset around then (a DST change within two days: toInstant reads
 * offsets a day either side), less a second for the zero-length case. The margin is the
 * occurrence's length plus that swing, exact for any zone with one offset change at most
 * in those four days (every real one), so a SECONDLY or MINUTELY rule that started long ago
 * costs steps for the window's content only.
 */
function skipTarget(clock: Clock, shape: Shape, allDay: boolean, windowStart: number): Wall {
  const days = allDay ? Math.max(1, shape.days + Math.ceil(shape.ms / DAY_MS)) : shape.days;
  const before = windowStart - (allDay ? 0 : shape.ms);
  const offset = (t: number) => wallMs(clock.toWall(t)) - Math.floor(t / 1000) * 1000;
  const here = offset(before);
  const swing = here - Math.min(here, offset(before - 2 * DAY_MS), offset(before + 2 * DAY_MS));
  const wall = wallMs(clock.toWall(before));
  return wallFromMs(wall - swing - 1000 - days * DAY_MS);
}

/**
 * The last instant an occurrence may start at (RFC 5545: UNTIL is inclusive). A UTC UNTIL is
 * that instant; on an all-day series only its date counts; a date UNTIL on a timed series
 * includes its whole day; a floating UNTIL is read in the series' zone.
 */
function untilInstant(until: ICAL.Time, seriesIsDate: boolean, clock: Clock): number {
  const wall = wallOf(until);
  if (seriesIsDate) return clock.toInstant({ ...wall, hour: 0, minute: 0, second: 0 });
  if (until.isDate) return clock.toInstant({ ...wall, hour: 23, minute: 59, second: 59 });
  return until.zone === ICAL.Timezone.utcTimezone ? wallMs(wall) : clock.toInstant(wall);
}

function shapeOf(event: VEvent, master: VEvent | undefined): Shape {
  const { start, end, duration } = event;
  if (duration !== undefined) return duration;
  if (end === undefined) {
    if (master !== undefined) return shapeOf(master, undefined);
    return start.date ? { days: 1, ms: 0 } : { days: 0, ms: 0 };
  }
  if (start.date) {
    const days = Math.round((wallMs(end.wall) - wallMs(start.wall)) / DAY_MS);
    return { days: Math.max(1, days), ms: 0 };
  }
  const ms = end.clock.toInstant(end.wall) - start.clock.toInstant(start.wall);
  return { days: 0, ms: Math.max(0, ms) };
}

function occurrenceOf(
  event: VEvent,
  start: When,
  shape: Shape,
  end: When | undefined,
  opts: ExpandOptions,
  master: VEvent | undefined,
  recurring = true,
): Occurrence {
  const base = {
    uid: event.uid,
    summary: event.summary ?? master?.summary,
    location: event.location ?? master?.location,
    description: event.description ?? master?.description,
    recurring,
  };
  if (start.date) {
    const days = Math.max(1, shape.days + Math.ceil(shape.ms / DAY_MS));
    const endWall = end?.date ? end.wall : addDays(start.wall, days);
    const startMs = opts.local.toInstant(start.wall);
    const endMs = Math.max(startMs, opts.local.toInstant(endWall));
    const startDate = formatDate(start.wall);
    return { ...base, allDay: true, startMs, endMs, startDate, endDate: formatDate(endWall) };
  }
  const startMs = start.clock.toInstant(start.wall);
  let endMs: number;
  if (end !== undefined) endMs = end.clock.toInstant(end.wall);
  else if (shape.days > 0)
    endMs = start.clock.toInstant(addDays(start.wall, shape.days)) + shape.ms;
  else endMs = startMs + shape.ms;
  return { ...base, allDay: false, startMs, endMs: Math.max(startMs, endMs) };
}

function addDays(w: Wall, days: number): Wall {
  return wallFromMs(wallMs(w) + days * DAY_MS);
}

function overlaps(
  o: Pick<Occurrence, 'startMs' | 'endMs'>,
  w: { startMs: number; endMs: number },
): boolean {
  if (o.endMs > o.startMs) return o.startMs < w.endMs && o.endMs > w.startMs;
  return o.startMs >= w.startMs && o.startMs < w.endMs;
}

/**
 * How an occurrence is named for EXDATE and RECURRENCE-ID matching: an all-day series by date
 * (`d:2026-03-10`); a timed one by instant (`t:<ms>`) and, for date-valued EXDATEs, by its
 * local date. The first key is the occurrence's identity.
 */
function keysOf(w: When, allDaySeries: boolean): string[] {
  const day = `d:${formatDate(w.wall)}`;
  if (allDaySeries || w.date) return [day];
  return [`t:${w.clock.toInstant(w.wall)}`, day];
}

function keySet(values: readonly When[], allDaySeries: boolean): Set<string> {
  return new Set(values.map((v) => keysOf(v, allDaySeries)[0]!));
}
