import {
  CaesarError,
  compiledScriptUrl,
  createThreadPool,
  defineTool,
  NotConfiguredError,
  RefCounted,
  type ThreadPoolOptions,
} from '../../src/legion/index.js';
import { CalDavClient } from './caldav.js';
import {
  CalendarConfigSchema,
  CONFIG_SECTION,
  isConfigured,
  missingKeys,
  notConfiguredMessage,
  notConfiguredReason,
  type CalDavSettings,
  type CalendarConfig,
} from './config.js';
import { preflightCalendar } from './preflight.js';
import { readCalendar, type ScanPool } from './read.js';
import { CalendarReadInputSchema, CalendarReadResultSchema } from './schema.js';

const DESCRIPTION = [
  "Reads events from the user's calendars (CalDAV); read only, it never changes a calendar.",
  'Give the range as start and end (ISO 8601: a date such as 2026-03-10 means local midnight;',
  'a date-time may carry an offset; end is exclusive) or as start and days; the default is the',
  'next 7 days from now, and a range may span at most 366 days.',
  'Optional: calendars (names to read; default all), query (text to find in the title, location',
  'or description, any case), limit (default 50, at most 500).',
  'Returns the events overlapping the range, earliest first: summary, start, end, all_day,',
  'location, description, calendar, recurring, uid. Timed events are RFC 3339 with the offset',
  'of the configured time zone (returned as timezone); all-day events are plain dates with an',
  'exclusive end (one day on 2026-03-10 ends 2026-03-11). Repeating events come as their',
  'occurrences in the range. truncated: true means more events matched than were returned.',
  'Example: {"start": "2026-03-09", "end": "2026-03-16", "calendars": ["Family"]}.',
  'Refuses (invalid_input) an end not after start, ranges over 366 days, and calendar names',
  'that do not exist (the error lists the names that do).',
].join(' ');

/** Per-call bound; each CalDAV request is also bounded by `timeout_seconds`. */
const CALL_TIMEOUT_MS = 30_000;
/** Calls one instance runs at once (most of a call is waiting on the CalDAV server). */
const MAX_CONCURRENCY = 4;

/**
 * One call's parsing (parse, expand, filter: scan.ts) runs in a thread of a pool of
 * `maxThreads` (CPU-bound work: more threads than a small host's cores buys nothing, and
 * the worst case is `maxThreads` x the heap bound; a call past them waits its turn). Time:
 * at most `maxRunMs`, and always ending 500 ms before the call's deadline (the SDK lowers
 * it), so a hostile calendar is answered `backend_error` naming the bound, not `timeout`.
 * Heap: one 8 MiB object (the most one CalDAV answer holds) with 32,000 overrides needs
 * more than 128 MB; ADR 0059 has the figures.
 */
export const PARSING_BOUNDS = Object.freeze({ maxThreads: 2, maxRunMs: 10_000, maxHeapMb: 256 });

interface CalendarReadToolOptions {
  /** The clock "now" is read from (the default window). @default Date.now */
  now?: () => number;
  /** The parsing threads' bounds and warmth; tests lower them. @default PARSING_BOUNDS */
  parsing?: Pick<ThreadPoolOptions, 'maxRunMs' | 'maxHeapMb' | 'warmThreads' | 'idleMs'>;
}

/**
 * Builds the calendar_read tool. Each distinct config section gets one CalDAV client (its
 * connection pool and its cached calendar list), opened by `start` and closed by the
 * `stop` of the last instance; the parsing threads are one pool for the definition, opened
 * by the first `start` and closed with the clients.
 */
export function createCalendarReadTool(options: CalendarReadToolOptions = {}) {
  const now = options.now ?? Date.now;
  const clients = new Map<CalendarConfig, CalDavClient>();
  // the parsing threads, and with them the clients, close when the last instance stops
  const scans = new RefCounted<'scan', Promise<ScanPool>>(async (pool) => {
    const open = [...clients.values()];
    clients.clear();
    await Promise.allSettled([...open.map((c) => c.close()), pool.close()]);
  });
  const clientFor = (config: CalDavSettings) => {
    let client = clients.get(config);
    if (client === undefined) {
      client = new CalDavClient(config);
      clients.set(config, client);
    }
    return client;
  };
  return defineTool({
    name: 'calendar_read',
    version: '1.0.0',
    title: 'Calendar (read)',
    description: DESCRIPTION,
    tags: ['tool', 'calendar', 'home', 'network'],
    backend: 'caldav',
    capabilities: ['read_calendar', 'search_events'],
    input: CalendarReadInputSchema,
    output: CalendarReadResultSchema,
    annotations: { readOnly: true, openWorld: true },
    executionLocality: 'lan',
    resourceRequirements: { cpu: 'low', memory_mb: 128, network: true },
    // the user's own events, with text anyone who sends an invitation can write
    outputTrust: 'untrusted',
    readsPrivate: true,
    config: CalendarConfigSchema,
    configSection: CONFIG_SECTION,
    timeoutMs: CALL_TIMEOUT_MS,
    maxConcurrency: MAX_CONCURRENCY,
    maxQueue: 64,
    start: async (ctx) => {
      await scans.acquire('scan', () =>
        createThreadPool({
          script: compiledScriptUrl(import.meta.url, './scan-thread.js'),
          name: 'calendar parsing',
          ...PARSING_BOUNDS,
          ...options.parsing,
          logger: ctx.logger,
        }),
      );
      if (isConfigured(ctx.config)) clientFor(ctx.config);
      else ctx.logger.info(notConfiguredMessage(missingKeys(ctx.config)));
    },
    stop: () => scans.release(),
    preflight: (ctx) => preflightCalendar(ctx.config),
    handler: async (input, ctx) => {
      const { config } = ctx;
      if (!isConfigured(config)) {
        throw new NotConfiguredError(notConfiguredReason(missingKeys(config)));
      }
      const scan = scans.peek('scan');
      if (scan === undefined) {
        throw CaesarError.of('internal', { reason: 'calendar_read was not started' });
      }
      const client = clientFor(config);
      return readCalendar(input, { client, config, ctx, now: now(), scan: await scan });
    },
  });
}

/** The shipped calendar_read tool (`caesar legion serve-tool calendar_read`). */
export const calendarReadTool = createCalendarReadTool();
