import { intlClock, TimeoutError, type Clock } from '../../src/legion/thread.js';
import { expandSeries, type Occurrence } from './expand.js';
import { byStart, matchesQuery, type Found } from './format.js';
import { parseCalendarData } from './ics.js';
import { UnusableZoneError } from './vtimezone.js';
import { ZoneBook } from './zones.js';

/**
 * The CPU-bound part of one call, which runs in a worker thread (scan-thread.ts, under the
 * SDK's heap and time bounds): the fetched objects' text in, the matching occurrences out.
 * Each object is parsed (ics.ts) and its events expanded in the window (expand.ts), and the
 * occurrences whose text matches the query are kept, the first `limit` by start. Everything
 * in and out is plain data (structured clone).
 */

/** One calendar object and the calendar it was fetched from. */
export interface ScanObject {
  readonly calendar: string;
  readonly href: string;
  readonly data: string;
}

export interface ScanTask {
  readonly objects: readonly ScanObject[];
  /** `[startMs, endMs)`. */
  readonly window: { readonly startMs: number; readonly endMs: number };
  /** The configured zone (IANA): floating times and all-day events are read in it. */
  readonly timezone: string;
  readonly query: string | undefined;
  /** Occurrences of one event in one answer. */
  readonly maxOccurrences: number;
  /** Occurrences returned at most (the call's `limit`), the earliest. */
  readonly limit: number;
  /** Epoch ms, the call's deadline. */
  readonly deadline: number;
  /** @default DEFAULT_MAX_STEPS, ical.js steps per event */
  readonly maxSteps?: number;
}

/** Something the answer cannot show, for the log: an unknown TZID, a bound reached. */
export interface ScanNote {
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

export interface ScanResult {
  /** The first `limit` matches, by start. */
  readonly found: Found[];
  /** More than `limit` matched. */
  readonly more: boolean;
  /** A bound (max_occurrences, steps) cut an event's occurrences short. */
  readonly capped: boolean;
  readonly notes: ScanNote[];
  /** Matches in all, before the limit. */
  readonly matched: number;
  /** ical.js steps spent: by all the VTIMEZONEs together, and by the costliest event. */
  readonly steps: { readonly zones: number; readonly event: number };
}

/** Notes kept per call at most. */
const MAX_NOTES = 20;
/**
 * Times one object is read: again after each of its VTIMEZONEs that broke a bound, now with
 * that zone's fallback (each read marks one more). An object with more such zones is skipped
 * with a note, and the answer is marked truncated.
 */
const MAX_READS_PER_OBJECT = 8;

export function scanObjects(task: ScanTask): ScanResult {
  const local = intlClock(task.timezone);
  const notes = new Notes();
  const note = notes.add;
  const zones = new ZoneBook({ local, note, deadline: task.deadline });
  /** Matches kept at most between sorts: memory follows the answer, not the calendar. */
  const keep = Math.max(2 * task.limit, 1000);
  const found: Found[] = [];
  let matched = 0;
  let capped = false;
  let eventSteps = 0;
  for (const object of task.objects) {
    if (Date.now() > task.deadline) {
      throw new TimeoutError('calendar_read ran out of time while reading events');
    }
    const read = readObject(object, task, { local, note, zones });
    capped ||= read.capped;
    eventSteps = Math.max(eventSteps, read.steps);
    for (const occurrence of read.occurrences) {
      if (!matchesQuery(occurrence, task.query)) continue;
      matched += 1;
      found.push({ calendar: object.calendar, occurrence });
    }
    if (found.length > keep) {
      found.sort(byStart);
      found.length = task.limit;
    }
  }
  found.sort(byStart);
  return {
    found: found.slice(0, task.limit),
    more: matched > task.limit,
    capped,
    notes: notes.list,
    matched,
    steps: { zones: zones.steps, event: eventSteps },
  };
}

interface Reading {
  readonly local: Clock;
  readonly note: Notes['add'];
  readonly zones: ZoneBook;
}

/** One object's occurrences in the window; a VTIMEZONE that breaks a bound restarts it. */
function readObject(
  object: ScanObject,
  task: ScanTask,
  { local, note, zones }: Reading,
): { occurrences: Occurrence[]; capped: boolean; steps: number } {
  for (let reads = 1; ; reads++) {
    let series;
    try {
      series = parseCalendarData(object.data, { local, note, zones, fallbackUid: object.href });
    } catch (err) {
      note('calendar object is not valid iCalendar; skipped', {
        href: object.href,
        error: err instanceof Error ? err.message : String(err),
      });
      return { occurrences: [], capped: false, steps: 0 };
    }
    try {
      const occurrences: Occurrence[] = [];
      let capped = false;
      let steps = 0;
      for (const s of series) {
        const expansion = expandSeries(s, {
          window: task.window,
          local,
          maxOccurrences: task.maxOccurrences,
          deadline: task.deadline,
          note,
          ...(task.maxSteps === undefined ? {} : { maxSteps: task.maxSteps }),
        });
        capped ||= expansion.capped;
        steps = Math.max(steps, expansion.steps);
        for (const o of expansion.occurrences) occurrences.push(o);
      }
      return { occurrences, capped, steps };
    } catch (err) {
      // the zone is marked unusable in the book: the next read uses its fallback
      if (!(err instanceof UnusableZoneError)) throw err;
      if (reads >= MAX_READS_PER_OBJECT) {
        note('calendar object has too many VTIMEZONEs that broke a bound; skipped', {
          href: object.href,
          error: err.message,
        });
        return { occurrences: [], capped: true, steps: 0 };
      }
    }
  }
}

/** Each distinct note once per call, at most MAX_NOTES of them. */
class Notes {
  readonly list: ScanNote[] = [];
  private readonly seen = new Set<string>();

  readonly add = (message: string, fields: Record<string, unknown>): void => {
    const key = `${message} ${JSON.stringify(fields.tzid ?? fields.uid ?? fields.href ?? '')}`;
    if (this.seen.has(key) || this.seen.size >= MAX_NOTES) return;
    this.seen.add(key);
    this.list.push({ message, fields });
  };
}
