import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../src/brain/dispatch/index.js';
import { serveTools, ToolConfigError, type ToolWorker } from '../../../src/legion/index.js';
import { PreflightReplySchema, preflightSubject } from '../../../src/protocol/index.js';
import { createCalendarReadTool } from '../../../workers/calendar_read/index.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { startRadicale, type TestRadicale } from '../../helpers/radicale.js';
import { STANDUP, TRIP } from '../../unit/calendar_read/fixtures.js';

/**
 * The wiring: calendar_read served over a real nats-server with its `calendar` config section
 * (strings, as the environment gives them), called through the brain's dispatcher, reading a
 * real Radicale.
 */

let nats: TestNats;
let dav: TestRadicale;
let nc: NatsConnection;
let worker: ToolWorker;
let dispatcher: Dispatcher;

beforeAll(async () => {
  [nats, dav] = await Promise.all([startNats(), startRadicale({ users: { alice: 'pw' } })]);
  await dav.makeCalendar('alice', 'home', 'Home');
  await dav.putEvent('alice', 'home', 'standup', STANDUP);
  await dav.putEvent('alice', 'home', 'trip', TRIP);
  const section = {
    caldav_url: dav.url,
    username: 'alice',
    password: 'pw',
    timezone: 'Europe/Berlin',
    timeout_seconds: '5',
    verify_ssl: 'true',
  };
  worker = await serveTools([createCalendarReadTool()], {
    nc: await nats.connect(),
    config: { calendar: section },
  });
  nc = await nats.connect();
  dispatcher = createDispatcher({ nc });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await Promise.allSettled([nats?.stop(), dav?.stop()]);
});

const dispatch = (input: unknown) =>
  dispatcher.dispatch('calendar_read', input, {
    decisionId: 'd-calendar',
    deadline: Date.now() + 15_000,
  });

describe('calendar_read over NATS', () => {
  test('a dispatched call reads Radicale and answers the events', async () => {
    const reply = await dispatch({ start: '2026-03-09', end: '2026-03-18', calendars: ['Home'] });
    expect(reply.success).toBe(true);
    if (!reply.success) return;
    const result = reply.result as {
      timezone: string;
      events: { summary: string; start: string }[];
    };
    expect(result.timezone).toBe('Europe/Berlin');
    expect(result.events.map((e) => [e.summary, e.start])).toEqual([
      ['Ski trip', '2026-03-10'],
      ['Standup (moved)', '2026-03-17T14:00:00+01:00'],
    ]);
  });

  test("a bad range is the handler's invalid_input; a bad limit is the schema's", async () => {
    const range = await dispatch({ start: '2026-03-10', end: '2026-03-01' });
    expect(range).toMatchObject({ success: false, error: { code: 'invalid_input' } });
    const limit = await dispatch({ limit: 1000 });
    expect(limit).toMatchObject({
      success: false,
      error: { code: 'invalid_input', details: [expect.objectContaining({ path: 'limit' })] },
    });
  });

  test('the preflight subject answers with the calendars check', async () => {
    const msg = await nc.request(
      preflightSubject('calendar_read'),
      new TextEncoder().encode('{}'),
      {
        timeout: 10_000,
      },
    );
    const reply = PreflightReplySchema.parse(JSON.parse(new TextDecoder().decode(msg.data)));
    expect(reply).toMatchObject({ tool: 'calendar_read', ok: true, execution_locality: 'lan' });
    expect(reply.checks.at(-1)).toEqual({
      name: 'calendars',
      ok: true,
      detail: '1 calendar(s): "Home"',
    });
  });

  test('an unknown key in the section fails the worker at start, named with its env var', async () => {
    const start = serveTools([createCalendarReadTool()], {
      nc: await nats.connect(),
      config: { calendar: { caldav_url: dav.url, calendar: 'Home' } },
    });
    await expect(start).rejects.toBeInstanceOf(ToolConfigError);
    await expect(start).rejects.toThrow(
      /invalid config for tool 'calendar_read': tools\.calendar\.calendar \(CAESAR_TOOLS__CALENDAR__CALENDAR\): unknown field 'calendar'/,
    );
  });
});
