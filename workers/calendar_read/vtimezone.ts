import ICAL from 'ical.js';
import {
  CaesarError,
  offsetClock,
  wallFromMs,
  wallMs,
  type Clock,
  type Wall,
} from '../../src/legion/thread.js';
import {
  boundedIterator,
  floatingTime,
  skipAhead,
  StepBudget,
  StepBudgetExceeded,
  wallOf,
  withImplicitParts,
} from './recur.js';

/**
 * A VTIMEZONE's UTC offsets, computed here from its observances (STANDARD and DAYLIGHT:
 * DTSTART, RRULE, RDATE, TZOFFSETFROM, TZOFFSETTO) and never by ical.js, whose Timezone
 * expands every rule from its DTSTART to five years past the year asked, with no bound: one
 * changing every second from 1900 held a worker at 100% for half an hour (issue 26). Here:
 * - changes are computed one UTC year at a time, for the years around the instants asked
 *   only, each rule moved ahead to that year first (recur.ts `skipAhead`);
 * - every step is counted: ZONE_MAX_STEPS per zone per call (and the call's own budget over
 *   all its zones, `parent`), at most MAX_CHANGES_PER_YEAR changes in a year and
 *   MAX_DATED_CHANGES dated ones (ical.js itself keeps each offset within a day);
 * - a zone past any of these throws {@link UnusableZoneError}; it is then not used at all
 *   (scan.ts reads its object again with the fallback zones.ts picks).
 */

/**
 * @default steps one VTIMEZONE may spend in one call. A real zone (two YEARLY rules) spends
 * about 200 a year it covers (ical.js: tens of microseconds), so this covers 250 years; a
 * hostile one stops here within about half a second.
 */
export const ZONE_MAX_STEPS = 50_000;
/** Offset changes one zone may make in one year; real zones make 2, at most 4. */
export const MAX_CHANGES_PER_YEAR = 64;
/** Changes with their own date (DTSTART without RRULE, RDATE) one zone may list. */
export const MAX_DATED_CHANGES = 1000;
/** Years of changes kept per zone (about 2 KB each at most). */
const MAX_CACHED_YEARS = 32;

/** Which bound a zone broke: its steps, its count of changes, a rule ical.js refuses. */
export type ZoneBound = 'steps' | 'changes' | 'rule';

/** A VTIMEZONE that broke a bound; its object is read again without it. */
export class UnusableZoneError extends Error {
  override readonly name = 'UnusableZoneError';
  constructor(
    readonly tzid: string,
    readonly bound: ZoneBound,
    message: string,
  ) {
    super(message);
  }
}

/** One offset change: its instant (epoch ms) and the offsets (ms) from then on and before. */
interface Change {
  readonly at: number;
  readonly offset: number;
  readonly before: number;
}

/** One RRULE of an observance, read once: UNTIL taken out as an instant. */
interface Rule {
  /** The rule without UNTIL, with the BY-parts DTSTART implies; never changed. */
  readonly recur: ICAL.Recur;
  readonly untilMs: number;
}

/** One STANDARD or DAYLIGHT: its onset (local wall time in `from`) and its rules. */
interface Observance {
  readonly from: number;
  readonly to: number;
  readonly start: Wall;
  readonly rules: readonly Rule[];
}

export interface VtimezoneOptions {
  /** @default ZONE_MAX_STEPS */
  readonly maxSteps?: number;
  /** A budget every step of this zone also spends: the call's, over all its zones. */
  readonly parent?: StepBudget;
}

export class VtimezoneRules {
  readonly tzid: string;
  /** Reads wall times with these offsets; throws UnusableZoneError past a bound. */
  readonly clock: Clock;
  private readonly observances: Observance[] = [];
  /** Changes with a date of their own, sorted. */
  private readonly dated: Change[] = [];
  private readonly years = new Map<number, readonly Change[]>();
  private readonly budget: StepBudget;
  private readonly firstYear: number;
  /** The offset before the zone's first change. */
  private readonly initial: number;

  /** @throws UnusableZoneError for too many dated changes */
  constructor(component: ICAL.Component, options: VtimezoneOptions = {}) {
    this.tzid = String(component.getFirstPropertyValue('tzid') ?? '');
    this.budget = new StepBudget(options.maxSteps ?? ZONE_MAX_STEPS, undefined, options.parent);
    for (const sub of component.getAllSubcomponents()) this.readObservance(sub);
    if (this.dated.length > MAX_DATED_CHANGES) {
      throw this.unusable('changes', `lists more than ${MAX_DATED_CHANGES} dated changes`);
    }
    this.dated.sort((a, b) => a.at - b.at);
    const onsets = [
      ...this.observances.map((o) => ({ at: wallMs(o.start) - o.from, before: o.from })),
      ...this.dated,
    ].sort((a, b) => a.at - b.at);
    this.initial = onsets[0]?.before ?? 0;
    this.firstYear = onsets.length > 0 ? yearOf(onsets[0]!.at) : 0;
    this.clock = offsetClock(this.tzid, (instant) => this.offsetAt(instant));
  }

  /** Steps spent so far (rules iterated), for tests and the fuzz pass. */
  get steps(): number {
    return this.budget.steps;
  }

  /** The offset (ms) at `instant`: that of the last change at or before it. */
  offsetAt(instant: number): number {
    const y = yearOf(instant);
    const last = latest(this.year(y), instant) ?? latest(this.year(y - 1), instant);
    if (last !== undefined) return last.offset;
    const next = this.year(y).find((c) => c.at > instant) ?? this.year(y + 1)[0];
    if (next !== undefined) return next.before;
    for (let k = y - 2; k >= this.firstYear; k--) {
      const changes = this.year(k);
      if (changes.length > 0) return changes.at(-1)!.offset;
    }
    return this.initial;
  }

  private readObservance(sub: ICAL.Component): void {
    if (sub.name !== 'standard' && sub.name !== 'daylight') return;
    const dtstart = sub.getFirstPropertyValue('dtstart');
    const from = this.offsetOf(sub.getFirstPropertyValue('tzoffsetfrom'));
    const to = this.offsetOf(sub.getFirstPropertyValue('tzoffsetto'));
    if (!(dtstart instanceof ICAL.Time) || from === undefined || to === undefined) return;
    const start = wallOf(dtstart);
    const rules = sub
      .getAllProperties('rrule')
      .map((p) => p.getFirstValue())
      .filter((v): v is ICAL.Recur => v instanceof ICAL.Recur)
      .map((v) => {
        const recur = v.clone();
        const untilMs = recur.until ? untilOf(recur.until, from) : Number.POSITIVE_INFINITY;
        recur.until = null;
        withImplicitParts(recur, start);
        return { recur, untilMs };
      });
    this.observances.push({ from, to, start, rules });
    // DTSTART is the first onset (RFC 5545 3.6.5); with a rule, the rule yields it
    if (rules.length === 0) this.dated.push({ at: wallMs(start) - from, offset: to, before: from });
    for (const prop of sub.getAllProperties('rdate')) {
      for (const v of prop.getValues() as unknown[]) {
        const t = v instanceof ICAL.Period ? v.start : v;
        if (!(t instanceof ICAL.Time)) continue;
        const wall = t.isDate
          ? { ...wallOf(t), hour: start.hour, minute: start.minute }
          : wallOf(t);
        const at = t.zone === ICAL.Timezone.utcTimezone ? wallMs(wall) : wallMs(wall) - from;
        this.dated.push({ at, offset: to, before: from });
        if (this.dated.length > MAX_DATED_CHANGES) return;
      }
    }
  }

  /** TZOFFSETFROM or TZOFFSETTO in ms; ical.js has folded it within a day. */
  private offsetOf(v: unknown): number | undefined {
    return v instanceof ICAL.UtcOffset ? v.toSeconds() * 1000 : undefined;
  }

  /**
   * The changes in UTC year `y`, sorted: computed once, kept for the last years asked. Each
   * year computed counts a step per rule, so a walk back over centuries of a zone with no
   * change in them ends at the step bound too.
   */
  private year(y: number): readonly Change[] {
    const kept = this.years.get(y);
    if (kept !== undefined) return kept;
    this.spend(Math.max(1, this.ruleCount));
    const from = wallMs({ year: y, month: 1, day: 1, hour: 0, minute: 0, second: 0 });
    const to = wallMs({ year: y + 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 });
    const changes = this.dated.filter((c) => c.at >= from && c.at < to);
    for (const o of this.observances) {
      for (const rule of o.rules) this.ruleChanges(o, rule, from, to, changes);
    }
    changes.sort((a, b) => a.at - b.at);
    if (this.years.size >= MAX_CACHED_YEARS) this.years.delete(this.years.keys().next().value!);
    this.years.set(y, changes);
    return changes;
  }

  /** Adds the onsets `rule` gives in `[fromMs, toMs)` to `out`, counting every step. */
  private ruleChanges(o: Observance, rule: Rule, fromMs: number, toMs: number, out: Change[]) {
    const { untilMs } = rule;
    if (untilMs < fromMs) return;
    let r = rule.recur;
    const skip = skipAhead(r, o.start, wallFromMs(fromMs + o.from - 1000));
    if (skip.kind === 'exhausted') return;
    if (skip.kind === 'moved' && skip.count !== null) {
      r = r.clone(); // what remains of COUNT, on a copy
      r.count = skip.count;
    }
    const first = skip.kind === 'moved' ? skip.start : o.start;
    try {
      const it = boundedIterator(r, floatingTime(first, false), this.budget);
      for (let t = it.next(); t; t = it.next()) {
        const at = wallMs(wallOf(t)) - o.from;
        if (at >= toMs || at > untilMs) return;
        if (at < fromMs) continue;
        out.push({ at, offset: o.to, before: o.from });
        if (out.length > MAX_CHANGES_PER_YEAR) {
          throw this.unusable('changes', `changes more than ${MAX_CHANGES_PER_YEAR} times a year`);
        }
      }
    } catch (err) {
      if (err instanceof StepBudgetExceeded) {
        throw this.unusable('steps', `broke its step bound: ${err.message}`);
      }
      // the call's deadline (a CaesarError) and our own bounds go on as they are
      if (err instanceof UnusableZoneError || err instanceof CaesarError) throw err;
      const detail = err instanceof Error ? err.message : String(err);
      throw this.unusable('rule', `has a rule ical.js cannot iterate: ${detail}`);
    }
  }

  private get ruleCount(): number {
    return this.observances.reduce((n, o) => n + o.rules.length, 0);
  }

  private spend(n: number): void {
    try {
      this.budget.spend(n);
    } catch (err) {
      if (!(err instanceof StepBudgetExceeded)) throw err;
      throw this.unusable('steps', `broke its step bound: ${err.message}`);
    }
  }

  private unusable(bound: ZoneBound, what: string): UnusableZoneError {
    return new UnusableZoneError(
      this.tzid,
      bound,
      `VTIMEZONE ${JSON.stringify(this.tzid)} ${what}`,
    );
  }
}

/** The last change at or before `instant`, in sorted `changes`. */
function latest(changes: readonly Change[], instant: number): Change | undefined {
  let found: Change | undefined;
  for (const c of changes) {
    if (c.at > instant) break;
    found = c;
  }
  return found;
}

/** UNTIL as an instant: UTC as written (RFC 5545 wants it so here), else local in `from`. */
function untilOf(until: ICAL.Time, from: number): number {
  const wall = wallOf(until);
  if (until.isDate) return wallMs({ ...wall, hour: 23, minute: 59, second: 59 }) - from;
  return until.zone === ICAL.Timezone.utcTimezone ? wallMs(wall) : wallMs(wall) - from;
}

function yearOf(instant: number): number {
  return new Date(instant).getUTCFullYear();
}

/**
 * A clock over one VTIMEZONE definition, on its own budget (tests and one-off reads; a call
 * shares one budget over its zones through zones.ts).
 */
export function vtimezoneClock(zone: ICAL.Timezone, options: VtimezoneOptions = {}): Clock {
  return new VtimezoneRules(zone.component, options).clock;
}
