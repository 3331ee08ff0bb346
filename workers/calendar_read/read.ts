import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  InvalidInputError,
  NotConfiguredError,
  settingName,
  TimeoutError,
  type ToolContext,
  intlClock,
  type Clock,
} from '../../src/legion/index.js';
import type { CalDavClient, CalendarInfo, CalendarObject } from './caldav.js';
import { callTimeZone, CONFIG_SECTION, type CalDavSettings } from './config.js';
import { expandSeries } from './expand.js';
import { matchesQuery, quoted, toEvents, type Found } from './format.js';
import { parseCalendarData } from './ics.js';
import type { CalendarReadInput, CalendarReadResult } from './schema.js';
import { resolveWindow, type ReadWindow } from './window.js';

/** Calendars queried at once. */
const QUERY_CONCURRENCY = 4;
/** Notes (unknown TZID, bound reached, bad object) logged per call at most. */
const MAX_NOTES = 20;

interface ReadContext {
  readonly client: CalDavClient;
  readonly config: CalDavSettings;
  readonly ctx: Pick<ToolContext, 'logger' | 'signal' | 'deadline'>;
  readonly now: number;
}

/** One call: window -> calendars -> calendar-query per calendar -> expand -> filter -> sort. */
export async function readCalendar(
  input: CalendarReadInput,
  { client, config, ctx, now }: ReadContext,
): Promise<CalendarReadResult> {
  const timezone = callTimeZone(config);
  const local = intlClock(timezone);
  const window = resolveWindow(input, now, local);
  const calendars = await selectCalendars(client, config, input.calendars, ctx);
  const fetched = await mapLimit(calendars, QUERY_CONCURRENCY, async (calendar) => ({
    calendar,
    objects: await client.objects(calendar, window, ctx.signal),
  }));
  const run: Run = { window, local, query: input.query, config, ctx, note: noteOnce(ctx.logger) };
  const found: Found[] = [];
  let capped = false;
  for (const { calendar, objects } of fetched) {
    for (const object of objects) {
      await checkpoint(ctx);
      capped = expandObject(object, calendar, run, found) || capped;
    }
  }
  const { events, truncated } = toEvents(found, local, input.limit);
  ctx.logger.debug(
    {
      calendars: calendars.length,
      objects: fetched.reduce((n, f) => n + f.objects.length, 0),
      matched: found.length,
      capped,
    },
    'calendar read',
  );
  return {
    start: window.start,
    end: window.end,
    timezone,
    events,
    truncated: truncated || capped,
  };
}

/** What every object of one call is expanded with. */
interface Run {
  readonly window: ReadWindow;
  readonly local: Clock;
  readonly query: string | undefined;
  readonly config: CalDavSettings;
  readonly ctx: ReadContext['ctx'];
  readonly note: Note;
}

/** Adds the object's occurrences that match to `found`; true when a bound cut one short. */
function expandObject(
  object: CalendarObject,
  calendar: CalendarInfo,
  { window, local, query, config, ctx, note }: Run,
  found: Found[],
): boolean {
  let series;
  try {
    series = parseCalendarData(object.data, { local, note, fallbackUid: object.href });
  } catch (err) {
    note('calendar object is not valid iCalendar; skipped', {
      href: object.href,
      error: (err as Error).message,
    });
    return false;
  }
  let capped = false;
  for (const s of series) {
    const expansion = expandSeries(s, {
      window,
      local,
      maxOccurrences: config.maxOccurrences,
      deadline: ctx.deadline,
      note,
    });
    capped ||= expansion.capped;
    for (const occurrence of expansion.occurrences) {
      if (matchesQuery(occurrence, query)) found.push({ calendar: calendar.name, occurrence });
    }
  }
  return capped;
}

/**
 * The calendars a call reads: `calendar_names` (when set) limits what exists for the tool;
 * `input.calendars` picks among those. A name not found refreshes the cached list once (a
 * calendar created a moment ago) before it is refused.
 */
async function selectCalendars(
  client: CalDavClient,
  config: CalDavSettings,
  asked: readonly string[] | undefined,
  ctx: ReadContext['ctx'],
): Promise<readonly CalendarInfo[]> {
  let visible = allowed(await client.calendars(ctx.signal), config, ctx);
  const unknown = () => (asked ?? []).filter((n) => !visible.some((c) => c.name === n));
  if (unknown().length > 0) {
    client.forget();
    visible = allowed(await client.calendars(ctx.signal), config, ctx);
  }
  if (visible.length === 0) {
    throw new NotConfiguredError(
      config.calendarNames === undefined
        ? `the CalDAV account has no calendar that holds events: check ${settingName(CONFIG_SECTION, 'caldav_url')}`
        : `none of the calendars in ${settingName(CONFIG_SECTION, 'calendar_names')} exists on the CalDAV server`,
    );
  }
  if (asked === undefined) return visible;
  const missing = unknown();
  if (missing.length > 0) {
    const message = `no calendar named ${quoted(missing)}; the calendars are ${quoted(visible.map((c) => c.name))}`;
    throw new InvalidInputError(message, { details: [{ path: 'calendars', message }] });
  }
  return visible.filter((c) => asked.includes(c.name));
}

function allowed(
  all: readonly CalendarInfo[],
  config: CalDavSettings,
  ctx: ReadContext['ctx'],
): readonly CalendarInfo[] {
  const names = config.calendarNames;
  if (names === undefined) return all;
  const absent = names.filter((n) => !all.some((c) => c.name === n));
  if (absent.length > 0) {
    ctx.logger.warn({ absent }, 'calendar_names lists calendars the server does not have');
  }
  return all.filter((c) => names.includes(c.name));
}

/** Lets timers and other calls run between objects; stops at the deadline. */
async function checkpoint(ctx: ReadContext['ctx']): Promise<void> {
  await nextTurn();
  ctx.signal.throwIfAborted();
  if (Date.now() > ctx.deadline) {
    throw new TimeoutError('calendar_read ran out of time while reading events');
  }
}

type Note = (message: string, fields: Record<string, unknown>) => void;

/** Logs each distinct note once per call, at most MAX_NOTES of them. */
function noteOnce(logger: ReadContext['ctx']['logger']): Note {
  const seen = new Set<string>();
  return (message, fields) => {
    const key = `${message} ${JSON.stringify(fields.tzid ?? fields.uid ?? fields.href ?? '')}`;
    if (seen.has(key) || seen.size >= MAX_NOTES) return;
    seen.add(key);
    logger.warn(fields, message);
  };
}

async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
