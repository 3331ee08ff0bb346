import { request, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import type { AuditRecord } from '../../../../src/audit/index.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { CaesarError } from '../../../../src/protocol/index.js';
import { waitFor, within } from '../../../helpers/wait.js';
import { harness, OPERATOR, type Harness } from '../../../unit/brain/http/harness.js';
import { StreamText } from '../../../unit/brain/http/sse.js';

/**
 * `GET /v1/events`: the live tail of the audit log, bounded per client and in number. The frames
 * are the ones docs/api.md's `curl -sN` example shows (`id`, `event: audit`, `data`).
 */

const READER = 'rd-0123456789abcdefghijklmnopqrstuvwxyzABCDE';

const row = (tool: string, payload: Record<string, unknown> = {}): Omit<AuditRecord, 'seq'> => ({
  ts: '2026-12-02T12:00:00.000Z',
  type: 'tool.denied',
  decisionId: `d-${tool}`,
  sessionId: null,
  tool,
  actor: 'operator',
  principal: 'operator',
  outcome: 'denied',
  payload,
  prevHash: 'p'.repeat(64),
  hash: 'h'.repeat(64),
});

/** The `audit` events of a body: `[id, parsed data]`, checking each frame's shape. */
function auditEvents(text: string): Array<[number, { seq: number; tool: string }]> {
  return text
    .split('\n\n')
    .filter((block) => block !== '' && !block.startsWith(':'))
    .map((block) => {
      const m = /^id: (\d+)\nevent: audit\ndata: (.*)$/.exec(block);
      if (m === null) throw new Error(`unexpected frame: ${JSON.stringify(block)}`);
      return [Number(m[1]), JSON.parse(m[2]!) as { seq: number; tool: string }];
    });
}

interface Client {
  res: IncomingMessage;
  close(): void;
}

/** GETs `path` on a real loopback listener (node:http) and resolves at the response head. */
async function get(h: TailHarness, path: string, token = OPERATOR): Promise<Client> {
  const url = new URL(h.url);
  const req = request({
    host: url.hostname,
    port: url.port,
    path,
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  req.end();
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  res.on('error', () => undefined); // a destroyed stream is the test's (or the server's) doing
  return { res, close: () => req.destroy() };
}

let open: Harness | undefined;
afterEach(async () => {
  await open?.[Symbol.asyncDispose]();
  open = undefined;
});

interface TailHarness extends Harness {
  /** Where the app listens on loopback. */
  readonly url: string;
}

async function tailHarness(overrides: Parameters<typeof harness>[0] = {}): Promise<TailHarness> {
  const h = await harness(overrides);
  open = h;
  const url = await h.app.listen({ host: '127.0.0.1', port: 0 });
  return Object.assign(h, { url });
}

describe('GET /v1/events', () => {
  test('streams each row committed after it opened, in the export shape with its seq as id', async () => {
    const h = await tailHarness();
    h.brain.appendRow(row('before'));
    const client = await get(h, '/v1/events');
    expect(client.res.statusCode).toBe(200);
    expect(client.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const body = new StreamText(client.res);
    await body.until((t) => t.startsWith(': ping\n\n'));
    h.brain.appendRow(row('first'));
    h.brain.appendRow(row('second', { input: { query: 'x' } }));
    await body.until((t) => auditEvents(t).length === 2);
    const events = auditEvents(body.text);
    expect(events.map(([id, data]) => [id, data.seq, data.tool])).toEqual([
      [2, 2, 'first'],
      [3, 3, 'second'],
    ]);
    expect(events[1]![1]).toMatchObject({
      event_type: 'tool.denied',
      decision_id: 'd-second',
      payload: { input: { query: 'x' } },
    });
    client.close();
  });

  test('after_seq resumes after that row, sending what was missed first', async () => {
    const h = await tailHarness();
    for (const tool of ['a', 'b', 'c']) h.brain.appendRow(row(tool));
    const client = await get(h, '/v1/events?after_seq=1');
    const body = new StreamText(client.res);
    await body.until((t) => auditEvents(t).length === 2);
    expect(auditEvents(body.text).map(([id]) => id)).toEqual([2, 3]);
    client.close();
  });

  test('needs the audit scope: 401 without a token, 403 for a token without it', async () => {
    const h = await tailHarness({
      tokens: TokenStore.from([
        { name: 'operator', token: OPERATOR },
        { name: 'reader', token: READER, scopes: ['read', 'confirm'] },
      ]),
    });
    const anonymous = await h.app.inject({ method: 'GET', url: '/v1/events' });
    expect(anonymous.statusCode).toBe(401);
    const reader = await h.app.inject({
      method: 'GET',
      url: '/v1/events',
      headers: { authorization: `Bearer ${READER}` },
    });
    expect(reader.statusCode).toBe(403);
    expect(reader.json().error.message).toContain("lacks the 'audit' scope");
    const bad = await h.app.inject({
      method: 'GET',
      url: '/v1/events?after_seq=-1',
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([
      { path: 'after_seq', message: 'expected a whole number' },
    ]);
  });

  test('at most streams.events.max are open at once; a closed one frees its place', async () => {
    const h = await tailHarness({ streams: { events: { max: 1, perToken: 2 } } });
    const first = await get(h, '/v1/events');
    expect(first.res.statusCode).toBe(200);
    const second = await get(h, '/v1/events');
    expect(second.res.statusCode).toBe(429);
    const text = await new StreamText(second.res).all();
    expect(JSON.parse(text).error.message).toContain('at most 1 event streams');
    first.close();
    // the server sees the close asynchronously: retry until the place is free
    let third: Client | undefined;
    for (let i = 0; i < 200 && third === undefined; i++) {
      const c = await get(h, '/v1/events');
      if (c.res.statusCode === 200) third = c;
      else c.res.resume();
    }
    expect(third?.res.statusCode).toBe(200);
    third?.close();
  });

  test('closing the server ends the open streams instead of waiting for them', async () => {
    const h = await tailHarness();
    const client = await get(h, '/v1/events');
    const body = new StreamText(client.res);
    await body.until((t) => t.startsWith(': ping'));
    await within(h.app.close(), 'the server to close with an event stream open');
    await within(body.all(), 'the stream to end');
  });

  test('a client that stops reading holds one buffer, not the log: the server stops reading rows and cuts it off', async () => {
    const h = await tailHarness({ streams: { events: { max: 1, perToken: 1 }, stallMs: 300 } });
    const client = await get(h, '/v1/events');
    client.res.pause(); // reads nothing more: the socket buffers fill
    const big = 'x'.repeat(16 * 1024);
    const total = 2500; // 40 MB of rows: far more than the socket buffers hold
    for (let i = 0; i < total; i++) {
      h.brain.appendRow(row(`t${i}`, { blob: big }));
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    const readUpTo = Math.max(
      ...h.brain
        .callsTo('auditQuery')
        .map((c) => (c.args[0] as { afterSeq?: number }).afterSeq ?? 0),
    );
    expect(readUpTo).toBeLessThan(total);
    // a paused client does not notice the close, so it is asked of the server
    await waitFor(
      () => h.logText().includes('event stream closed: the client stopped reading'),
      'the server to close the stalled stream',
      10_000,
    );
    client.close();
    // its place is free again
    const next = await get(h, '/v1/events');
    expect(next.res.statusCode).toBe(200);
    next.close();
  });
  test('a quiet stream with no sign of reading ends cleanly after the stall time; resuming misses nothing', async () => {
    const h = await tailHarness({ streams: { stallMs: 300 } });
    h.brain.appendRow(row('before'));
    const client = await get(h, '/v1/events');
    const body = new StreamText(client.res);
    h.brain.appendRow(row('seen'));
    await body.until((t) => auditEvents(t).length === 1);
    const [[seen]] = auditEvents(body.text) as [[number, unknown]];
    // heartbeats and one row never fill a socket: the stream cannot prove its client reads
    const text = await within(body.all(), 'the quiet stream to end by itself');
    expect(text.endsWith(`: reconnect after_seq=${seen}\n\n`)).toBe(true);
    h.brain.appendRow(row('while away'));
    const again = await get(h, `/v1/events?after_seq=${seen}`);
    const resumed = new StreamText(again.res);
    await resumed.until((t) => auditEvents(t).length === 1);
    expect(auditEvents(resumed.text).map(([id, data]) => [id, data.tool])).toEqual([
      [seen + 1, 'while away'],
    ]);
    again.close();
  });

  test('Last-Event-ID, which SSE clients send when they reconnect, resumes like after_seq', async () => {
    const h = await tailHarness();
    for (const tool of ['a', 'b', 'c']) h.brain.appendRow(row(tool));
    const byHeader = await h.app.inject({
      method: 'GET',
      url: '/v1/events',
      headers: { authorization: `Bearer ${OPERATOR}`, 'last-event-id': 'x' },
    });
    expect(byHeader.statusCode).toBe(400);
    expect(byHeader.json().error.details).toEqual([
      { path: 'last-event-id', message: 'expected a whole number' },
    ]);
    const url = new URL(h.url);
    const resumed = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: '/v1/events',
        headers: { authorization: `Bearer ${OPERATOR}`, 'last-event-id': '2' },
      });
      req.once('response', resolve).once('error', reject).end();
    });
    const body = new StreamText(resumed);
    await body.until((t) => auditEvents(t).length === 1);
    expect(auditEvents(body.text).map(([id]) => id)).toEqual([3]);
    resumed.destroy();
  });
  test('a stream that cannot start (the log cannot be read) is 503 and keeps no slot', async () => {
    const h = await tailHarness({ streams: { events: { max: 1, perToken: 1 } } });
    const query = h.brain.auditQuery.bind(h.brain);
    h.brain.auditQuery = () => {
      throw CaesarError.of('audit_unavailable', { what: 'read-only' });
    };
    const refused = await h.app.inject({
      method: 'GET',
      url: '/v1/events',
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    expect(refused.statusCode).toBe(503);
    h.brain.auditQuery = query;
    h.brain.appendRow(row('readable again'));
    const client = await get(h, '/v1/events');
    expect(client.res.statusCode).toBe(200);
    client.close();
  });
});
