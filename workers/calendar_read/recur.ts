import ICAL from 'ical.js';
import { TimeoutError, DAY_MS, wallFromMs, wallMs, type Wall } from '../../src/legion/thread.js';

/**
 * RRULE iteration, bounded. ical.js does the recurrence arithmetic; this module keeps it
 * cheap and finite:
 * - {@link skipAhead} moves a rule's start forward by whole periods (FREQ x INTERVAL) to just
 *   before the window, so a weekly rule from 1970 costs a few steps, not 2,900;
 * - {@link boundedIterator} counts ical.js's inner steps: a rule whose BY-parts can never
 *   match (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) loops forever inside one `next()` call,
 *   so the count is checked there, and the call's deadline every 1024 steps.
 */

/** @default 20,000 inner iteration steps per event per call (ical.js runs ~10 us a step). */
export const DEFAULT_MAX_STEPS = 20_000;

/** Steps one expansion of a year's days (YEARLY rules) counts for: 1-400 us of ical.js. */
const YEAR_EXPANSION_STEPS = 32;

/** An event's expansion took more than its share of steps; its occurrences stop there. */
export class StepBudgetExceeded extends Error {
  override readonly name = 'StepBudgetExceeded';
}

export class StepBudget {
  #steps = 0;
  constructor(
    readonly limit: number,
    /** Epoch ms; past it, expansion stops with `timeout`. */
    readonly deadline = Number.POSITIVE_INFINITY,
    /** A wider budget every step also spends (one call's, over several zones). */
    private readonly parent?: StepBudget,
  ) {}

  get steps(): number {
    return this.#steps;
  }

  /** Counts `n` steps; throws instead when they would pass `limit`. */
  spend(n = 1): void {
    const before = this.#steps;
    if (before + n > this.limit) {
      this.#steps = this.limit;
      throw new StepBudgetExceeded(`recurrence expansion stopped after ${this.limit} steps`);
    }
    this.#steps = before + n;
    if (before >> 10 !== this.#steps >> 10 && Date.now() > this.deadline) {
      throw new TimeoutError('calendar_read ran out of time while expanding recurring events');
    }
    this.parent?.spend(n);
  }
}

/** The budget of the iterator being constructed: ical.js's constructor already iterates. */
let constructing: StepBudget | undefined;

class BoundedRecurIterator extends ICAL.RecurIterator {
  budget: StepBudget | undefined;

  // ical.js calls this once per candidate inside next()'s loop: the one place to count
  override check_contracting_rules(): boolean {
    (this.budget ?? constructing)?.spend();
    return super.check_contracting_rules();
  }

  // a YEARLY rule expands a year's days here, in next() and in init(), which looks for a
  // first matching year up to year 20000 (a rule that never matches: 18,000 years, 2 s); one
  // expansion costs 1-400 us, so it counts as YEAR_EXPANSION_STEPS
  override expand_year_days(year: number): number {
    (this.budget ?? constructing)?.spend(YEAR_EXPANSION_STEPS);
    return super.expand_year_days(year);
  }

  // a day tested against BYDAY (ordinal weekdays walk the month): inside expansions and next()
  override is_day_in_byday(tt: ICAL.Time): 0 | 1 {
    (this.budget ?? constructing)?.spend();
    return super.is_day_in_byday(tt);
  }

  // moves a day at a time: INTERVAL=10000 on a DAILY rule is 10,000 turns of a loop per step
  override increment_monthday(inc: number): void {
    (this.budget ?? constructing)?.spend(Math.max(1, inc));
    super.increment_monthday(inc);
  }
}

/** An iterator over `rule` from `dtstart` that spends `budget` on every inner step. */
export function boundedIterator(
  rule: ICAL.Recur,
  dtstart: ICAL.Time,
  budget: StepBudget,
): ICAL.RecurIterator {
  constructing = budget;
  try {
    const it = new BoundedRecurIterator({ rule, dtstart });
    it.budget = budget;
    return it;
  } finally {
    constructing = undefined;
  }
}

/** A floating ical.js time (no zone): iteration runs on wall time, as RFC 5545 wants. */
export function floatingTime(wall: Wall, isDate: boolean): ICAL.Time {
  return new ICAL.Time({ ...wall, isDate }, ICAL.Timezone.localTimezone);
}

export function wallOf(t: ICAL.Time): Wall {
  return t.isDate
    ? { year: t.year, month: t.month, day: t.day, hour: 0, minute: 0, second: 0 }
    : {
        year: t.year,
        month: t.month,
        day: t.day,
        hour: t.hour,
        minute: t.minute,
        second: t.second,
      };
}

/**
 * Spells out the BY-parts RFC 5545 derives from DTSTART where ical.js would go wrong: a
 * YEARLY rule from February 29 with no BY-parts rolls over to March 1 in ical.js, while
 * RFC 5545 3.3.10 skips the years without that date; BYMONTH=2;BYMONTHDAY=29 does that.
 */
export function withImplicitParts(rule: ICAL.Recur, start: Wall): void {
  const bare = Object.keys(rule.parts ?? {}).length === 0;
  if (rule.freq === 'YEARLY' && bare && start.month === 2 && start.day === 29) {
    rule.setComponent('BYMONTH', [2]);
    rule.setComponent('BYMONTHDAY', [29]);
  }
}

/** Where a rule may start instead of its DTSTART; `count` is what remains of COUNT. */
type Skip =
  | { readonly kind: 'none' }
  | { readonly kind: 'exhausted' }
  | { readonly kind: 'moved'; readonly start: Wall; readonly count: number | null };

const FIXED_UNIT_MS: Partial<Record<string, number>> = {
  SECONDLY: 1000,
  MINUTELY: 60_000,
  HOURLY: 3_600_000,
  DAILY: DAY_MS,
  WEEKLY: 7 * DAY_MS,
};

/**
 * Moves the start of `rule` forward by a whole number of periods (FREQ x INTERVAL) so that it
 * is at or before `target` (a wall time), keeping the phase every BY-part and INTERVAL
 * depend on: weekday, day of month, week parity. The moved start may itself not match the
 * rule (ical.js then yields it once); callers pick `target` early enough that it ends before
 * the window. COUNT rules move only when every period holds exactly one occurrence (no
 * BY-parts), so what remains of COUNT is known; UNTIL rules move freely.
 */
export function skipAhead(rule: ICAL.Recur, start: Wall, target: Wall): Skip {
  const interval = Math.max(1, rule.interval || 1);
  const simple = Object.keys(rule.parts ?? {}).length === 0;
  if (rule.count && !simple) return { kind: 'none' };
  const moved = movedStart(rule.freq, interval, start, target, Boolean(rule.count));
  if (moved === undefined) return { kind: 'none' };
  if (!rule.count) return { kind: 'moved', start: moved.start, count: null };
  const left = rule.count - moved.periods / interval;
  return left > 0 ? { kind: 'moved', start: moved.start, count: left } : { kind: 'exhausted' };
}

function movedStart(
  freq: string,
  interval: number,
  start: Wall,
  target: Wall,
  counted: boolean,
): { start: Wall; periods: number } | undefined {
  const unit = FIXED_UNIT_MS[freq];
  if (unit !== undefined) {
    const periods = Math.floor((wallMs(target) - wallMs(start)) / (unit * interval)) * interval;
    return periods > 0 ? { start: wallFromMs(wallMs(start) + periods * unit), periods } : undefined;
  }
  if (freq !== 'MONTHLY' && freq !== 'YEARLY') return undefined;
  const perPeriod = freq === 'MONTHLY' ? 1 : 12;
  // a COUNT rule skips only when the day exists in every period (no 31st, no Feb 29)
  if (counted && (start.day > 28 || (freq === 'YEARLY' && start.month === 2 && start.day > 28))) {
    return undefined;
  }
  let months = (target.year - start.year) * 12 + (target.month - start.month);
  if (laterInMonth(start, target)) months -= 1;
  let periods = Math.floor(months / perPeriod / interval) * interval;
  for (; periods > 0; periods -= interval) {
    const total = start.month - 1 + periods * perPeriod;
    const year = start.year + Math.floor(total / 12);
    const month = (total % 12) + 1;
    if (start.day <= ICAL.Time.daysInMonth(month, year)) {
      return { start: { ...start, year, month }, periods };
    }
  }
  return undefined;
}

/** True when `a`'s day and time of month come after `b`'s. */
function laterInMonth(a: Wall, b: Wall): boolean {
  const rest = (w: Wall) => ((w.day * 24 + w.hour) * 60 + w.minute) * 60 + w.second;
  return rest(a) > rest(b);
}
