import { formatInstant, type Clock } from '../../src/legion/thread.js';
import type { Occurrence } from './expand.js';
import type { CalendarEvent } from './schema.js';

/** Longest description in an answer; longer ones end in `…`. */
const MAX_DESCRIPTION_CHARS = 1000;
/** Longest summary or location in an answer. */
const MAX_TEXT_CHARS = 500;
/** What an event with no SUMMARY is called. */
const UNTITLED = '(no title)';

/** An occurrence and the calendar it came from. */
export interface Found {
  readonly calendar: string;
  readonly occurrence: Occurrence;
}

/** True when `query` is absent or found, in any case, in the summary, location or description. */
export function matchesQuery(o: Occurrence, query: string | undefined): boolean {
  if (query === undefined) return true;
  const needle = query.toLocaleLowerCase();
  return [o.summary, o.location, o.description].some(
    (s) => s !== undefined && s.toLocaleLowerCase().includes(needle),
  );
}

/**
 * The answer's events: sorted by start (ties by summary, calendar, uid), the first `limit`,
 * each time in `local`'s zone. `truncated` when some were left out.
 */
export function toEvents(
  found: readonly Found[],
  local: Clock,
  limit: number,
): { events: CalendarEvent[]; truncated: boolean } {
  const sorted = [...found].sort(byStart);
  return {
    events: sorted.slice(0, limit).map((f) => toEvent(f, local)),
    truncated: sorted.length > limit,
  };
}

/** Earliest first; ties by summary, calendar, uid: the answer's order. */
export function byStart(a: Found, b: Found): number {
  const x = a.occurrence;
  const y = b.occurrence;
  return (
    x.startMs - y.startMs ||
    compare(x.summary ?? UNTITLED, y.summary ?? UNTITLED) ||
    compare(a.calendar, b.calendar) ||
    compare(x.uid, y.uid)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function toEvent(f: Found, local: Clock): CalendarEvent {
  const o = f.occurrence;
  const event: CalendarEvent = {
    summary: clip(o.summary ?? UNTITLED, MAX_TEXT_CHARS),
    start: o.allDay ? o.startDate! : formatInstant(o.startMs, local),
    end: o.allDay ? o.endDate! : formatInstant(o.endMs, local),
    all_day: o.allDay,
    calendar: f.calendar,
    recurring: o.recurring,
    uid: o.uid,
  };
  if (o.location !== undefined) event.location = clip(o.location, MAX_TEXT_CHARS);
  if (o.description !== undefined) event.description = clip(o.description, MAX_DESCRIPTION_CHARS);
  return event;
}

/** At most `max` characters, the last one `…` when cut; never half a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** `"Family", "Work"`: names as a message lists them. */
export function quoted(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(', ');
}
