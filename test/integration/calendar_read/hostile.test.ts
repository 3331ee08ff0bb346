import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startCli, type RunningCli } from '../../helpers/cli.js';
import { failureOf, startTool } from './harness.js';
import { stopProcess } from '../../helpers/brain.js';
import { rawDispatch } from '../../helpers/dispatch.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { quietCpu } from '../../helpers/proc.js';
import { startRadicale, type TestRadicale } from '../../helpers/radicale.js';
import { waitFor } from '../../helpers/wait.js';
import {
  everySecondVtimezone,
  STANDUP,
  vcalendar,
  vevent,
} from '../../unit/calendar_read/fixtures.js';

/**
 * Issue 26, finding 1, against the real parts: a `caesar legion serve-tool calendar_read`
 * process reading a real Radicale over a real nats-server. An object whose VTIMEZONE changes
 * its offset every second from 1900 once kept the worker at 100% of a core for half an hour,
 * unanswered, and every later call met `no_worker`. (Radicale's own parser hangs on the rules
 * from 1900, so the object stored here starts them a minute before its event: ical.js still
 * expanded them second by second to five years ahead.)
 */

let nats: TestNats;
let dav: TestRadicale;
let nc: NatsConnection;
let worker: RunningCli;

/** The tool caps a call at 30 s; the answer must come before that. */
const DEADLINE_MS = 30_000;

const call = (input: unknown) =>
  rawDispatch(nc, 'calendar_read', input, {
    deadlineMs: DEADLINE_MS,
    decisionId: `d-hostile-${Math.random()}`,
  });

/**
 * Costly within every per-event bound: 300 events that start on the day read, with a rule
 * that matches only in January, each spend their 20,000 ical.js steps (25-40 ms on a 2-core
 * test machine) before their expansion stops: 7.5 s in all there, so a machine 30 times
 * faster still runs past the test's bound of 250 ms. (Radicale sends them, as each DTSTART
 * is in the range, and keeps one object per UID.)
 */
const COSTLY_BOUND_MS = 250;
const COSTLY = vcalendar(
  'X-WR-CALNAME:Costly',
  ...Array.from({ length: 300 }, (_, i) =>
    vevent(
      `costly-${i}@test`,
      'SUMMARY:Costly',
      'DTSTART:20260310T000000Z',
      'RRULE:FREQ=SECONDLY;BYMONTH=1',
    ),
  ),
);

beforeAll(async () => {
  [nats, dav] = await Promise.all([startNats(), startRadicale({ users: { alice: 'pw' } })]);
  await dav.makeCalendar('alice', 'home', 'Home');
  await dav.makeCalendar('alice', 'invites', 'Invites');
  await dav.putCalendar('alice', 'costly', COSTLY);
  await dav.putEvent('alice', 'home', 'standup', STANDUP);
  await dav.putEvent(
    'alice',
    'invites',
    'hostile',
    vcalendar(
      everySecondVtimezone('Europe/Berlin', '20260310T085900'),
      vevent(
        'hostile@test',
        'SUMMARY:Every minute',
        'DTSTART;TZID=Europe/Berlin:20260310T090000',
        'RRULE:FREQ=MINUTELY',
      ),
    ),
  );
  worker = startCli(
    ['legion', 'serve-tool', 'calendar_read', '--nats-url', nats.url, '--log-level', 'info'],
    {
      CAESAR_WORKER__REQUIRE_GRANT: 'false',
      CAESAR_TOOLS__CALENDAR__CALDAV_URL: dav.url,
      CAESAR_TOOLS__CALENDAR__USERNAME: 'alice',
      CAESAR_TOOLS__CALENDAR__PASSWORD: 'pw',
      CAESAR_TOOLS__CALENDAR__TIMEZONE: 'Europe/Berlin',
    },
  );
  // the worker logs to stderr
  await waitFor(() => /"msg":"ready"/.test(worker.stderr()), 'the worker to serve', 60_000, 50);
  nc = await nats.connect();
}, 90_000);

afterAll(async () => {
  await stopProcess(worker);
  await nc?.close();
  await Promise.allSettled([nats?.stop(), dav?.stop()]);
});

describe('a hostile VTIMEZONE in a shared calendar', () => {
  test('is answered within the deadline, the worker goes quiet, and the next call is served at once', async () => {
    const hostile = await call({ start: '2026-03-10', days: 1, calendars: ['Invites'] });
    expect(hostile.elapsedMs).toBeLessThan(DEADLINE_MS);
    // listed in the IANA zone its TZID names: the VTIMEZONE itself broke its bound
    expect(hostile.reply).toMatchObject({ success: true });
    if (!hostile.reply.success) return;
    const result = hostile.reply.result as { events: { start: string }[]; truncated: boolean };
    expect(result.events[0]?.start).toBe('2026-03-10T09:00:00+01:00');
    expect(result.events).toHaveLength(50); // the default limit, of 900 that day
    expect(result.truncated).toBe(true);
    await waitFor(
      () =>
        worker
          .stderr()
          .split('\n')
          .some((l) => /VTIMEZONE/.test(l) && /Europe\/Berlin/.test(l)),
      'the log line naming the zone that was not used',
    );

    const pid = worker.child.pid!;
    await quietCpu(pid);

    const next = await call({ start: '2026-03-01', end: '2026-04-01', calendars: ['Home'] });
    expect(next.reply).toMatchObject({ success: true });
    expect(next.elapsedMs).toBeLessThan(5000);
  }, 60_000);
});

describe('a calendar that costs more than the parsing bound', () => {
  test('is answered backend_error naming the time bound, and the next call is served', async () => {
    const section = {
      caldav_url: dav.url,
      username: 'alice',
      password: 'pw',
      timezone: 'UTC',
    };
    await using tool = await startTool(section, { parsing: { maxRunMs: COSTLY_BOUND_MS } });
    const started = performance.now();
    const err = await failureOf(tool.call({ start: '2026-03-10', days: 1, calendars: ['Costly'] }));
    expect(err).toMatchObject({
      code: 'backend_error',
      retryable: false,
      message: `the backend failed: calendar parsing ran past its time bound of ${COSTLY_BOUND_MS} ms; its thread was stopped`,
    });
    expect(performance.now() - started).toBeLessThan(20_000);
    const next = await tool.call({ start: '2026-03-01', end: '2026-04-01', calendars: ['Home'] });
    expect(next.events.length).toBeGreaterThan(0);
  }, 60_000);
});
