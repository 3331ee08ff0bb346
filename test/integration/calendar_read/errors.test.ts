import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CaesarError } from '../../../src/legion/index.js';
import { createLogger } from '../../../src/log/index.js';
import { startFakeServer } from '../../helpers/http-server.js';
import { closedPort } from '../../helpers/ports.js';
import { startRadicale, type TestRadicale } from '../../helpers/radicale.js';
import { vcalendar, vevent } from '../../unit/calendar_read/fixtures.js';
import { failureOf, startTool } from './harness.js';

/**
 * How calendar_read fails and what its preflight says: a real Radicale for credentials and
 * calendars; loopback fakes for servers that are not CalDAV, that hold, or that are gone.
 */

const PASSWORD = 'alice-correct-horse';
const WRONG = 'wrong-battery-staple';
let dav: TestRadicale;
let base: Record<string, string>;

beforeAll(async () => {
  dav = await startRadicale({ users: { alice: PASSWORD } });
  base = { caldav_url: dav.url, username: 'alice', password: PASSWORD, timezone: 'UTC' };
  await dav.makeCalendar('alice', 'work', 'Work');
  await dav.makeCalendar('alice', 'family', 'Family');
  await dav.putEvent(
    'alice',
    'work',
    'one',
    vcalendar(vevent('one@test', 'SUMMARY:One', 'DTSTART:20260310T090000Z')),
  );
}, 60_000);

afterAll(async () => {
  await dav?.stop();
});

const MARCH = { start: '2026-03-01', end: '2026-04-01' };

/** A loopback server that is not CalDAV: a plain web server with HTML pages. */
async function webServer(status: number) {
  return startFakeServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end('<html><body>Welcome to nginx!</body></html>');
  });
}

describe('failures', () => {
  test('a wrong password is not_configured naming the keys, never the password', async () => {
    const lines: string[] = [];
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => lines.push(c.toString('utf8')));
    const logger = createLogger({ level: 'debug', destination: sink });
    await using tool = await startTool({ ...base, password: WRONG }, { logger });
    const err = await failureOf(tool.call(MARCH));
    expect(err).toBeInstanceOf(CaesarError);
    expect(err).toMatchObject({ code: 'not_configured', retryable: false });
    expect(err.message).toBe(
      'not configured: the CalDAV server rejected the username or password: check CAESAR_TOOLS__CALENDAR__USERNAME / CAESAR_TOOLS__CALENDAR__PASSWORD (tools.calendar.username / tools.calendar.password)',
    );
    expect(JSON.stringify({ ...err, message: err.message })).not.toContain(WRONG);
    // the same logger through a call that works: lines are written, no password in them
    await using good = await startTool(base, { logger });
    await good.call(MARCH);
    expect(lines.join('')).toContain('calendar read');
    expect(lines.join('')).not.toContain(WRONG);
    expect(lines.join('')).not.toContain(PASSWORD);
  });

  test('a calendar that does not exist is invalid_input listing those that do', async () => {
    await using tool = await startTool(base);
    const err = await failureOf(tool.call({ ...MARCH, calendars: ['Work', 'Holidays'] }));
    expect(err).toMatchObject({
      code: 'invalid_input',
      message: 'no calendar named "Holidays"; the calendars are "Family", "Work"',
      details: [{ path: 'calendars', message: expect.stringContaining('"Family", "Work"') }],
    });
  });

  test('an end before the start is invalid_input, before any request', async () => {
    await using tool = await startTool({
      ...base,
      caldav_url: `http://127.0.0.1:${await closedPort()}/`,
    });
    await expect(tool.call({ start: '2026-03-10', end: '2026-03-09' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  test.each([404, 405, 200])(
    'a web server answering PROPFIND with HTTP %i and HTML is backend_error: not a CalDAV server',
    async (status) => {
      await using web = await webServer(status);
      await using tool = await startTool({ ...base, caldav_url: `${web.url}/` });
      const err = await failureOf(tool.call(MARCH));
      expect(err).toMatchObject({ code: 'backend_error', retryable: false });
      expect(err.message).toContain(`${web.url}/ is not a CalDAV server`);
      expect(err.message).toContain('CAESAR_TOOLS__CALENDAR__CALDAV_URL');
      expect(web.requests[0]?.method).toBe('PROPFIND');
      expect(web.requests[0]?.headers.authorization).toMatch(/^Basic /);
    },
  );

  test('a server error is backend_error, retryable', async () => {
    await using web = await webServer(503);
    await using tool = await startTool({ ...base, caldav_url: `${web.url}/dav/` });
    const err = await failureOf(tool.call(MARCH));
    expect(err).toMatchObject({ code: 'backend_error', retryable: true });
    expect(err.message).toBe(
      `the backend failed: CalDAV server at ${web.url} answered HTTP 503 to PROPFIND /dav/`,
    );
  });

  test('connection refused is backend_error naming the host', async () => {
    const port = await closedPort();
    await using tool = await startTool({ ...base, caldav_url: `http://127.0.0.1:${port}/` });
    const err = await failureOf(tool.call(MARCH));
    expect(err).toMatchObject({ code: 'backend_error', retryable: true });
    expect(err.message).toContain(`cannot connect to 127.0.0.1:${port}`);
  });

  test('a server that holds the request past timeout_seconds is a timeout', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await using slow = await startFakeServer(async (_req, res) => {
      await held;
      res.end();
    });
    await using tool = await startTool({
      ...base,
      caldav_url: `${slow.url}/`,
      timeout_seconds: '0.3',
    });
    const started = performance.now();
    const err = await failureOf(tool.call(MARCH));
    release();
    expect(err).toMatchObject({ code: 'timeout', retryable: true });
    expect(err.message).toMatch(/did not answer within 300 ms/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("the call's own abort (its deadline) ends the request with the call's reason", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await using slow = await startFakeServer(async (_req, res) => {
      await held;
      res.end();
    });
    await using tool = await startTool({ ...base, caldav_url: `${slow.url}/` });
    const ac = new AbortController();
    const reason = new CaesarError('timeout', 'deadline passed');
    const pending = tool.call(MARCH, { signal: ac.signal });
    while (slow.requests.length === 0) await new Promise((r) => setImmediate(r));
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    release();
  });

  test('a principal on another origin is refused, never fetched', async () => {
    await using other = await webServer(207);
    await using fake = await startFakeServer((_req, res) => {
      res.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' });
      res.end(
        `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/</d:href><d:propstat><d:prop><d:current-user-principal><d:href>${other.url}/alice/</d:href></d:current-user-principal></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`,
      );
    });
    await using tool = await startTool({ ...base, caldav_url: `${fake.url}/` });
    const err = await failureOf(tool.call(MARCH));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain(`refusing a request to another origin (${other.url})`);
    expect(other.requests).toHaveLength(0);
  });

  test('an object that is not iCalendar is skipped; the others are answered', async () => {
    const multistatus = (body: string) =>
      `<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">${body}</d:multistatus>`;
    const prop = (href: string, props: string) =>
      `<d:response><d:href>${href}</d:href><d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;
    const good = vcalendar(vevent('good@test', 'SUMMARY:Good', 'DTSTART:20260310T090000Z'));
    await using fake = await startFakeServer((req, res) => {
      res.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' });
      if (req.method === 'PROPFIND' && req.url === '/') {
        res.end(
          multistatus(
            prop(
              '/',
              '<d:current-user-principal><d:href>/u/</d:href></d:current-user-principal><d:resourcetype><d:collection/></d:resourcetype>',
            ),
          ),
        );
      } else if (req.method === 'PROPFIND' && req.headers.depth === '0') {
        res.end(
          multistatus(
            prop('/u/', '<c:calendar-home-set><d:href>/u/</d:href></c:calendar-home-set>'),
          ),
        );
      } else if (req.method === 'PROPFIND') {
        res.end(
          multistatus(
            prop('/u/', '<d:resourcetype><d:collection/></d:resourcetype>') +
              prop(
                '/u/cal/',
                '<d:displayname>Fake</d:displayname><d:resourcetype><d:collection/><c:calendar/></d:resourcetype>',
              ),
          ),
        );
      } else {
        res.end(
          multistatus(
            prop('/u/cal/bad.ics', '<c:calendar-data>BEGIN:NONSENSE</c:calendar-data>') +
              prop('/u/cal/good.ics', `<c:calendar-data>${good}</c:calendar-data>`),
          ),
        );
      }
    });
    await using tool = await startTool({ ...base, caldav_url: `${fake.url}/` });
    const { events } = await tool.call(MARCH);
    expect(events.map((e) => [e.summary, e.calendar])).toEqual([['Good', 'Fake']]);
    expect(fake.requests.at(-1)?.method).toBe('REPORT');
    expect(fake.requests.at(-1)?.body).toContain(
      'time-range start="20260301T000000Z" end="20260401T000000Z"',
    );
  });
});

describe('preflight', () => {
  test('configured and reachable: connect, auth, endpoint, then the calendars by name', async () => {
    await using tool = await startTool(base);
    const r = await tool.preflight();
    expect(r.ok).toBe(true);
    expect(r.checks?.map((c) => [c.name, c.ok])).toEqual([
      ['connect', true],
      ['auth', true],
      ['endpoint', true],
      ['calendars', true],
    ]);
    expect(r.checks?.at(-1)?.detail).toBe('2 calendar(s): "Family", "Work"');
  });

  test('calendar_names naming a calendar that does not exist fails the calendars check', async () => {
    await using tool = await startTool({ ...base, calendar_names: 'Work, Holidays' });
    const r = await tool.preflight();
    expect(r.ok).toBe(false);
    expect(r.checks?.at(-1)).toEqual({
      name: 'calendars',
      ok: false,
      detail:
        'CAESAR_TOOLS__CALENDAR__CALENDAR_NAMES (tools.calendar.calendar_names) names "Holidays", which the server does not have; its calendars: "Family", "Work"',
    });
  });

  test('unconfigured: one configured check naming the key', async () => {
    await using tool = await startTool({});
    expect(await tool.preflight()).toEqual({
      ok: false,
      checks: [
        {
          name: 'configured',
          ok: false,
          detail: 'set CAESAR_TOOLS__CALENDAR__CALDAV_URL (tools.calendar.caldav_url)',
        },
      ],
    });
  });

  test('unreachable: the connect check fails', async () => {
    await using tool = await startTool({
      ...base,
      caldav_url: `http://127.0.0.1:${await closedPort()}/`,
    });
    const r = await tool.preflight();
    expect(r.ok).toBe(false);
    expect(r.checks?.map((c) => [c.name, c.ok])).toEqual([
      ['dns', true],
      ['connect', false],
    ]);
  });

  test('a wrong password fails the auth check naming the keys, never the password', async () => {
    await using tool = await startTool({ ...base, password: WRONG });
    const r = await tool.preflight();
    expect(r.ok).toBe(false);
    expect(r.checks?.at(-1)).toEqual({
      name: 'auth',
      ok: false,
      detail: expect.stringContaining('CAESAR_TOOLS__CALENDAR__PASSWORD'),
    });
    expect(JSON.stringify(r)).not.toContain(WRONG);
  });

  test('a web server that answers 200 passes the probe but fails the calendars check', async () => {
    await using web = await webServer(200);
    await using tool = await startTool({ ...base, caldav_url: `${web.url}/` });
    const r = await tool.preflight();
    expect(r.ok).toBe(false);
    expect(r.checks?.at(-1)).toMatchObject({
      name: 'calendars',
      ok: false,
      detail: expect.stringContaining('is not a CalDAV server'),
    });
  });
});
