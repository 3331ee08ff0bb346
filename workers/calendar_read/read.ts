import {
  InvalidInputError,
  NotConfiguredError,
  settingName,
  type ThreadPool,
  type ToolContext,
  intlClock,
} from '../../src/legion/index.js';
import type { CalDavClient, CalendarInfo } from './caldav.js';
import { callTimeZone, CONFIG_SECTION, type CalDavSettings } from './config.js';
import { quoted, toEvents } from './format.js';
import type { ScanObject, ScanResult, ScanTask } from './scan.js';
import type { CalendarReadInput, CalendarReadResult } from './schema.js';
import { resolveWindow } from './window.js';

/** Calendars queried at once. */
const QUERY_CONCURRENCY = 4;

/** The parsing threads: each call's objects are parsed and expanded there (scan-thread.ts). */
export type ScanPool = ThreadPool<ScanTask, ScanResult>;

interface ReadContext {
  readonly client: CalDavClient;
  readonly config: CalDavSettings;
  readonly ctx: Pick<ToolContext, 'logger' | 'signal' | 'deadline'>;
  readonly now: number;
  readonly scan: ScanPool;
}

/**
 * One call: window -> calendars -> calendar-query per calendar (here, on the main thread) ->
 * parse, expand, filter and keep the first `limit` (in a parsing thread, under its heap and
 * time bounds: a calendar object is untrusted) -> format.
 */
export async function readCalendar(
  input: CalendarReadInput,
  { client, config, ctx, now, scan }: ReadContext,
): Promise<CalendarReadResult> {
  const timezone = callTimeZone(config);
  const local = intlClock(timezone);
  const window = resolveWindow(input, now, local);
  const calendars = await selectCalendars(client, config, input.calendars, ctx);
  const fetched = await mapLimit(calendars, QUERY_CONCURRENCY, async (calendar) => ({
    calendar,
    objects: await client.objects(calendar, window, ctx.signal),
  }));
  const objects: ScanObject[] = fetched.flatMap(({ calendar, objects }) =>
    objects.map((o) => ({ calendar: calendar.name, href: o.href, data: o.data })),
  );
  const task: ScanTask = {
    objects,
    window: { startMs: window.startMs, endMs: window.endMs },
    timezone,
    query: input.query,
    maxOccurrences: config.maxOccurrences,
    limit: input.limit,
    deadline: ctx.deadline,
  };
  const result = await scan.run(task, { signal: ctx.signal, deadline: ctx.deadline });
  for (const { message, fields } of result.notes) ctx.logger.warn(fields, message);
  const { events } = toEvents(result.found, local, input.limit);
  ctx.logger.debug(
    {
      calendars: calendars.length,
      objects: objects.length,
      matched: result.matched,
      capped: result.capped,
      steps: result.steps,
    },
    'calendar read',
  );
  return {
    start: window.start,
    end: window.end,
    timezone,
    events,
    truncated: result.more || result.capped,
  };
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
