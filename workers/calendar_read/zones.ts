import type ICAL from 'ical.js';
import { intlClock, isTimeZone, type Clock, type Wall } from '../../src/legion/thread.js';
import { StepBudget } from './recur.js';
import { UnusableZoneError, VtimezoneRules, ZONE_MAX_STEPS } from './vtimezone.js';

/**
 * The VTIMEZONE definitions one call meets, each read once (objects of one calendar repeat
 * the same few zones) and each on its own step budget inside the call's: at most
 * CALL_ZONE_MAX_STEPS over all of them. A zone that breaks a bound is not used; its TZID is
 * read instead as:
 * - the IANA zone of that name, when the runtime knows it (what the sender's calendar almost
 *   always meant: Europe/Berlin, America/New_York);
 * - else the configured zone, as floating time (as for a TZID with no VTIMEZONE at all).
 * Its object is read again from the start with that fallback (scan.ts), so one object never
 * mixes the two; a warning note names the zone, the bound and the fallback. The answer is not
 * marked truncated: every event is listed, in the fallback zone.
 */

/** @default steps all the VTIMEZONEs of one call may spend together: four hostile ones. */
export const CALL_ZONE_MAX_STEPS = 200_000;
/** Distinct zone definitions kept per call; more are read again when met again. */
const MAX_ZONES = 256;

type Note = (message: string, fields: Record<string, unknown>) => void;

interface ZoneBookOptions {
  /** The configured zone: the fallback of a TZID Intl does not know. */
  readonly local: Clock;
  readonly note?: Note;
  /** Epoch ms; expansion past it throws `timeout`. */
  readonly deadline?: number;
  /** @default ZONE_MAX_STEPS per zone */
  readonly zoneMaxSteps?: number;
  /** @default CALL_ZONE_MAX_STEPS over every zone */
  readonly callMaxSteps?: number;
}

interface Entry {
  clock: Clock;
  /** Set once the zone broke a bound. */
  unusable?: UnusableZoneError;
}

export class ZoneBook {
  private readonly entries = new Map<string, Entry>();
  private readonly budget: StepBudget;

  constructor(private readonly options: ZoneBookOptions) {
    this.budget = new StepBudget(
      options.callMaxSteps ?? CALL_ZONE_MAX_STEPS,
      options.deadline ?? Number.POSITIVE_INFINITY,
    );
  }

  /** Steps every zone of this book has spent. */
  get steps(): number {
    return this.budget.steps;
  }

  /**
   * The clock of `tzid` as `component` defines it, or its fallback once the definition broke
   * a bound. The clock throws UnusableZoneError the first time the definition breaks one.
   */
  clockFor(component: ICAL.Component, tzid: string): Clock {
    const key = component.toString();
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = this.read(component);
      if (this.entries.size >= MAX_ZONES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, entry);
    }
    return entry.unusable === undefined ? entry.clock : this.fallback(entry.unusable, tzid);
  }

  private read(component: ICAL.Component): Entry {
    let rules: VtimezoneRules;
    try {
      rules = new VtimezoneRules(component, {
        maxSteps: this.options.zoneMaxSteps ?? ZONE_MAX_STEPS,
        parent: this.budget,
      });
    } catch (err) {
      if (!(err instanceof UnusableZoneError)) throw err;
      return { clock: this.options.local, unusable: err };
    }
    const entry: Entry = { clock: rules.clock };
    /** Marks the zone unusable the moment it breaks a bound, then lets the error go on. */
    const guard =
      <A, R>(read: (a: A) => R) =>
      (a: A): R => {
        try {
          return read(a);
        } catch (err) {
          if (err instanceof UnusableZoneError) entry.unusable ??= err;
          throw err;
        }
      };
    entry.clock = Object.freeze({
      name: rules.clock.name,
      toInstant: guard((wall: Wall) => rules.clock.toInstant(wall)),
      toWall: guard((instant: number) => rules.clock.toWall(instant)),
    });
    return entry;
  }

  private fallback(err: UnusableZoneError, tzid: string): Clock {
    const known = isTimeZone(tzid);
    const clock = known ? intlClock(tzid) : this.options.local;
    this.options.note?.(
      known
        ? 'VTIMEZONE broke a bound and is not used: its TZID is read as the IANA zone of that name'
        : 'VTIMEZONE broke a bound and is not used: its times are read in the configured zone',
      { tzid, bound: err.bound, error: err.message, zone: clock.name },
    );
    return clock;
  }
}
