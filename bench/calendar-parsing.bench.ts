/**
 * What running calendar_read's parsing in a worker thread costs (ADR 0059, issue 26): the
 * start of one parsing thread (script, ical.js, the SDK's thread entry), a warm round trip
 * with nothing to parse, and one call's parsing of a month of a busy calendar in the thread
 * against the same `scanObjects` in the calling thread (the difference is the structured
 * clone of the objects' text there and of the found occurrences back). Medians.
 *
 *   npm run bench -- calendar-parsing
 */
import { createThreadPool, type ThreadPool } from '../src/legion/index.js';
import { scanObjects, type ScanResult, type ScanTask } from '../workers/calendar_read/scan.js';
import { benchSize, percentile, type BenchContext } from './harness.js';

const SCRIPT = new URL('../workers/calendar_read/scan-thread.js', import.meta.url);
const STARTS = benchSize(10, 2);
const ROUND_TRIPS = benchSize(400, 10);
const CALLS = benchSize(40, 2);
const OBJECTS = benchSize(200, 10);

const BERLIN = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:STANDARD',
  'DTSTART:20001029T030000',
  'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'END:STANDARD',
  'BEGIN:DAYLIGHT',
  'DTSTART:20000326T020000',
  'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'END:DAYLIGHT',
  'END:VTIMEZONE',
];

/** An object as Radicale stores one: a VTIMEZONE and one event, every third one weekly. */
function object(i: number): string {
  const day = String(1 + (i % 28)).padStart(2, '0');
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//bench//EN',
    ...BERLIN,
    'BEGIN:VEVENT',
    `UID:bench-${i}@example`,
    'DTSTAMP:20260101T000000Z',
    `SUMMARY:Event ${i}`,
    'LOCATION:Office',
    `DESCRIPTION:${'Notes on the agenda. '.repeat(8)}`,
    `DTSTART;TZID=Europe/Berlin:202603${day}T${String(8 + (i % 10)).padStart(2, '0')}0000`,
    'DURATION:PT45M',
    ...(i % 3 === 0 ? ['RRULE:FREQ=WEEKLY;COUNT=20'] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

function task(objects: number): ScanTask {
  return {
    objects: Array.from({ length: objects }, (_, i) => ({
      calendar: 'Work',
      href: `/alice/work/${i}.ics`,
      data: object(i),
    })),
    window: {
      startMs: Date.parse('2026-03-01T00:00:00Z'),
      endMs: Date.parse('2026-04-01T00:00:00Z'),
    },
    timezone: 'Europe/Berlin',
    query: undefined,
    maxOccurrences: 1000,
    limit: 500,
    deadline: Number.MAX_SAFE_INTEGER,
  };
}

async function median(n: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return percentile(times, 50);
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('calendar_read parsing thread: start, round trip, one call in and out of it');
  const options = { script: SCRIPT, name: 'calendar parsing', maxThreads: 1, warmThreads: 1 };
  const rss = process.memoryUsage().rss;
  const start = await median(STARTS, async () => {
    const p = await createThreadPool<ScanTask, ScanResult>(options);
    await p.close();
  });
  ctx.figure('thread start (to ready: ical.js and the step loaded)', start, 'ms');

  const pool: ThreadPool<ScanTask, ScanResult> = await createThreadPool(options);
  try {
    ctx.figure(
      'process RSS with one warm thread, more than none',
      (process.memoryUsage().rss - rss) / 2 ** 20,
      'MiB',
    );
    const empty = task(0);
    for (let i = 0; i < 50; i++) await pool.run(empty);
    const direct = await median(ROUND_TRIPS, () => Promise.resolve(scanObjects(empty)));
    const trip = await median(ROUND_TRIPS, () => pool.run(empty));
    ctx.figure('warm round trip, nothing to parse', trip * 1000, 'us', { baseline: direct * 1000 });

    const month = task(OBJECTS);
    const bytes = month.objects.reduce((n, o) => n + o.data.length, 0);
    for (let i = 0; i < 5; i++) await pool.run(month);
    const inline = await median(CALLS, () => Promise.resolve(scanObjects(month)));
    const threaded = await median(CALLS, () => pool.run(month));
    ctx.figure(
      `parsing a month, ${OBJECTS} objects (${Math.round(bytes / 1024)} KiB), calling thread`,
      inline,
      'ms',
    );
    ctx.figure(`the same in the parsing thread`, threaded, 'ms', { baseline: inline });
  } finally {
    await pool.close();
  }
}
