import ICAL from 'ical.js';
import {
  intlClock,
  isTimeZone,
  UTC_CLOCK,
  type Clock,
  type Wall,
} from '../../src/legion/thread.js';
import { ZoneBook } from './zones.js';

/**
 * iCalendar text to the events it holds, with every date-time's zone resolved: ical.js
 * parses; this module decides how each value is read (RFC 5545 3.3.5):
 * - `Z`: UTC;
 * - `TZID` with its VTIMEZONE in the object: that definition, its offsets computed with
 *   bounds by vtimezone.ts (never by ical.js's own zone expansion, which has none), or its
 *   fallback if it broke one (zones.ts);
 * - `TZID` without VTIMEZONE: the IANA zone of that name if Intl knows it, else floating;
 * - no zone (floating) and dates (all-day): the configured zone.
 */

/** One DTSTART, DTEND, RDATE, EXDATE or RECURRENCE-ID value. */
export interface When {
  readonly wall: Wall;
  /** A DATE value (all-day); `wall`'s time is midnight. */
  readonly date: boolean;
  /** How `wall` becomes an instant. */
  readonly clock: Clock;
}

/** DURATION: nominal days (wall-clock days, DST-proof) and exact time. */
interface Span {
  readonly days: number;
  readonly ms: number;
}

/** One VEVENT, read. */
export interface VEvent {
  readonly uid: string;
  readonly summary: string | undefined;
  readonly location: string | undefined;
  readonly description: string | undefined;
  /** STATUS:CANCELLED. */
  readonly cancelled: boolean;
  readonly start: When;
  /** DTEND, when given. */
  readonly end: When | undefined;
  /** DURATION, when given instead of DTEND. */
  readonly duration: Span | undefined;
  readonly rrules: readonly ICAL.Recur[];
  readonly rdates: readonly { readonly start: When; readonly end?: When }[];
  readonly exdates: readonly When[];
  /** Set on an override of one occurrence of a recurring event. */
  readonly recurrenceId: When | undefined;
}

/** The components of one event: its master and the overrides of single occurrences. */
export interface EventSeries {
  readonly uid: string;
  readonly master: VEvent | undefined;
  readonly overrides: readonly VEvent[];
}

interface ParseOptions {
  /** The configured zone: floating times and dates are read in it. */
  readonly local: Clock;
  /** Called for what the answer cannot show: an unknown TZID, a VEVENT with no DTSTART. */
  readonly note?: (message: string, fields: Record<string, unknown>) => void;
  /** UID for events that have none (the resource's URL). */
  readonly fallbackUid?: string;
  /** The call's VTIMEZONE definitions. @default a book for this object alone */
  readonly zones?: ZoneBook;
}

/** What reading one object's values needs: the options, and a zone book for sure. */
interface Reading extends ParseOptions {
  readonly zones: ZoneBook;
}

/**
 * The events of one calendar object resource, grouped by UID.
 * @throws Error (ical.js ParserError) when the text is not iCalendar.
 */
export function parseCalendarData(text: string, options: ParseOptions): EventSeries[] {
  const opts: Reading = { ...options, zones: options.zones ?? new ZoneBook(options) };
  const jcal = ICAL.parse(text) as unknown[];
  const roots = Array.isArray(jcal[0]) ? (jcal as unknown[][]) : [jcal];
  const groups = new Map<string, { master?: VEvent; overrides: VEvent[] }>();
  for (const root of roots) {
    for (const vevent of new ICAL.Component(root).getAllSubcomponents('vevent')) {
      const event = readEvent(vevent, opts);
      if (event === undefined) continue;
      const group = groups.get(event.uid) ?? { overrides: [] };
      groups.set(event.uid, group);
      if (event.recurrenceId !== undefined) group.overrides.push(event);
      else if (group.master === undefined) group.master = event;
      else
        opts.note?.('second VEVENT with the same UID and no RECURRENCE-ID ignored', {
          uid: event.uid,
        });
    }
  }
  return [...groups].map(([uid, g]) => ({ uid, master: g.master, overrides: g.overrides }));
}

function readEvent(c: ICAL.Component, opts: Reading): VEvent | undefined {
  const uid = textOf(c, 'uid') ?? opts.fallbackUid ?? '';
  const start = whenOf(c.getFirstProperty('dtstart'), opts);
  const recurrenceId = whenOf(c.getFirstProperty('recurrence-id'), opts);
  if (start === undefined && recurrenceId === undefined) {
    opts.note?.('VEVENT without DTSTART ignored', { uid });
    return undefined;
  }
  return {
    uid,
    summary: textOf(c, 'summary'),
    location: textOf(c, 'location'),
    description: textOf(c, 'description'),
    cancelled: textOf(c, 'status')?.toUpperCase() === 'CANCELLED',
    // an override may leave DTSTART out: it then keeps its original time
    start: (start ?? recurrenceId)!,
    end: whenOf(c.getFirstProperty('dtend'), opts),
    duration: spanOf(c.getFirstPropertyValue('duration')),
    rrules: c
      .getAllProperties('rrule')
      .map((p) => p.getFirstValue())
      .filter((v): v is ICAL.Recur => v instanceof ICAL.Recur),
    rdates: c.getAllProperties('rdate').flatMap((p) => rdatesOf(p, opts)),
    exdates: c.getAllProperties('exdate').flatMap((p) => valuesOf(p, opts)),
    recurrenceId,
  };
}

function textOf(c: ICAL.Component, name: string): string | undefined {
  const v = c.getFirstPropertyValue(name);
  if (v === null || v === undefined) return undefined;
  const s = (typeof v === 'string' ? v : String(v)).trim();
  return s === '' ? undefined : s;
}

function whenOf(prop: ICAL.Property | null, opts: Reading): When | undefined {
  const v = prop?.getFirstValue();
  return prop && v instanceof ICAL.Time ? when(v, prop, opts) : undefined;
}

function valuesOf(prop: ICAL.Property, opts: Reading): When[] {
  return prop
    .getValues()
    .filter((v): v is ICAL.Time => v instanceof ICAL.Time)
    .map((v) => when(v, prop, opts));
}

function rdatesOf(prop: ICAL.Property, opts: Reading): { start: When; end?: When }[] {
  return prop.getValues().flatMap((v: unknown) => {
    if (v instanceof ICAL.Time) return [{ start: when(v, prop, opts) }];
    if (v instanceof ICAL.Period) {
      return [{ start: when(v.start, prop, opts), end: when(v.getEnd(), prop, opts) }];
    }
    return [];
  });
}

function spanOf(v: unknown): Span | undefined {
  if (!(v instanceof ICAL.Duration) || v.isNegative) return undefined;
  return {
    days: v.weeks * 7 + v.days,
    ms: ((v.hours * 60 + v.minutes) * 60 + v.seconds) * 1000,
  };
}

function when(t: ICAL.Time, prop: ICAL.Property, opts: Reading): When {
  const wall: Wall = {
    year: t.year,
    month: t.month,
    day: t.day,
    hour: t.isDate ? 0 : t.hour,
    minute: t.isDate ? 0 : t.minute,
    second: t.isDate ? 0 : t.second,
  };
  return { wall, date: t.isDate, clock: t.isDate ? opts.local : clockOf(t, prop, opts) };
}

function clockOf(t: ICAL.Time, prop: ICAL.Property, opts: Reading): Clock {
  if (t.zone === ICAL.Timezone.utcTimezone) return UTC_CLOCK;
  const tzid = prop.getParameter('tzid');
  if (typeof tzid !== 'string' || tzid === '') return opts.local;
  // ical.js attached the object's own VTIMEZONE definition when there is one
  if (t.zone !== ICAL.Timezone.localTimezone && t.zone?.component) {
    return opts.zones.clockFor(t.zone.component, tzid);
  }
  if (isTimeZone(tzid)) return intlClock(tzid);
  opts.note?.('unknown TZID without VTIMEZONE: read as floating time in the configured zone', {
    tzid,
    zone: opts.local.name,
  });
  return opts.local;
}
