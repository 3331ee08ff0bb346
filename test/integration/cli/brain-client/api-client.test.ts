import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  ApiError,
  createApiClient,
  sseEvents,
  type ApiClient,
} from '../../../../src/cli/brain-client/client.js';
import type { ChatEvent, ChatResponse } from '../../../../src/brain/api/index.js';
import {
  TOKEN,
  httpError,
  report,
  sseFrame,
  startBrainStub,
  type BrainStub,
} from './brain-stub.js';

let stub: BrainStub;
let client: ApiClient;

beforeAll(async () => {
  stub = await startBrainStub();
});
afterAll(async () => {
  await stub[Symbol.asyncDispose]();
});
beforeEach(() => {
  stub.reset();
  client = createApiClient({ url: stub.url, token: TOKEN, timeoutMs: 2000 });
});

/** A port nothing listens on: bound once, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('API client requests', () => {
  test('chat posts the message with a bearer token and JSON headers, and parses the answer', async () => {
    const res = await client.chat({ message: 'what is 17 * 23', session_id: 's-1' });
    expect(res).toMatchObject({ reply: '17 * 23 = 391', session_id: 's-1', planner: 'intent' });
    expect(res.tool_calls[0]).toMatchObject({ tool: 'calculator', outcome: 'ok', result: 391 });
    const [seen] = stub.requests;
    expect(seen).toMatchObject({ method: 'POST', url: '/v1/chat' });
    expect(seen!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen!.headers['content-type']).toBe('application/json');
    expect(seen!.headers.accept).toBe('application/json');
    expect(seen!.body).toEqual({ message: 'what is 17 * 23', session_id: 's-1' });
  });

  test('invoke posts {input} to the tool path and returns the report', async () => {
    const res = await client.invoke('calculator', { expression: '17 * 23' });
    expect(res).toMatchObject({ tool: 'calculator', outcome: 'ok', result: { value: 391 } });
    expect(stub.requests[0]).toMatchObject({
      url: '/v1/tools/calculator/invoke',
      body: { input: { expression: '17 * 23' } },
    });
  });

  test('path segments are encoded, so an id cannot reach another route', async () => {
    await failure(client.confirm('../tools', true));
    expect(stub.requests[0]!.url).toBe('/v1/confirmations/..%2Ftools');
  });

  test('confirm posts {approve}; tools lists tool views', async () => {
    expect((await client.confirm('conf-1', false)).outcome).toBe('rejected');
    expect(stub.requests[0]!.body).toEqual({ approve: false });
    const tools = await client.tools();
    expect(tools.map((t) => t.name)).toEqual(['calculator']);
    expect(stub.requests[1]).toMatchObject({ method: 'GET', url: '/v1/tools', body: undefined });
    expect(stub.requests[1]!.headers['content-type']).toBeUndefined();
  });

  test('a base URL with a path prefix keeps it', async () => {
    stub.route(/^GET \/caesar\/v1\/tools$/, () => ({ status: 200, body: [] }));
    const prefixed = createApiClient({ url: `${stub.url}/caesar`, token: TOKEN });
    expect(await prefixed.tools()).toEqual([]);
  });

  test('a non-http URL is refused up front', () => {
    expect(() => createApiClient({ url: 'nats://127.0.0.1:4222', token: TOKEN })).toThrow(
      /http\(s\) URL/,
    );
  });
});

describe('API client errors', () => {
  test.each([
    [401, 'unauthorized', 'missing or unknown API token'],
    [404, 'confirmation_not_found', 'no pending confirmation'],
    [413, 'body_too_large', 'request body is larger than 1048576 bytes'],
    [429, 'rate_limited', 'too many requests'],
    [503, 'audit_unavailable', 'the audit log cannot be written'],
  ])(
    '%i %s maps to ApiError with status, code, message and request id',
    async (status, code, message) => {
      stub.route(/^POST \/v1\/chat$/, () => httpError(status, code, message));
      const err = await failure(client.chat({ message: 'hi' }));
      const id = `req-${status}`;
      expect(err).toMatchObject({ httpStatus: status, code, message, requestId: id });
      expect(err.retryable).toBe(status === 429 || status === 503);
    },
  );

  test('a wrong token is a 401 from the server', async () => {
    const wrong = createApiClient({ url: stub.url, token: 'nope' });
    expect(await failure(wrong.tools())).toMatchObject({ httpStatus: 401, code: 'unauthorized' });
  });

  test('Retry-After on a 429 becomes retryAfterMs', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      ...(httpError(429, 'rate_limited', 'slow down') as { status: number; body: unknown }),
      headers: { 'retry-after': '7' },
    }));
    expect((await failure(client.chat({ message: 'hi' }))).retryAfterMs).toBe(7000);
  });

  test('validation details of a 400 are kept', async () => {
    const details = [{ path: 'message', message: 'Too small' }];
    stub.route(/^POST \/v1\/chat$/, () => ({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'bad body', details }, request_id: 'r' },
    }));
    expect((await failure(client.chat({ message: 'x' }))).details).toEqual(details);
  });

  test('an error body that is not the contract shape is api_bad_response, keeping http_<status>', async () => {
    stub.route(/^GET \/v1\/tools$/, () => ({ status: 502, raw: '<html>bad gateway</html>' }));
    const err = await failure(client.tools());
    expect(err).toMatchObject({
      httpStatus: 502,
      code: 'api_bad_response',
      remoteCode: 'http_502',
      requestId: undefined,
    });
    expect(err.message).toBe(
      "the answer to GET /v1/tools is HTTP 502 Bad Gateway with a body that is not the API's error",
    );
  });

  test.each([
    ['not JSON', { status: 200, raw: 'hello' }, /is not JSON/],
    ['the wrong shape', { status: 200, body: { reply: 42 } }, /does not match the API contract/],
    [
      'JSON with a prototype key (the one JSON ladder, issue 30)',
      { status: 200, raw: '{"reply":"hi","session_id":"s","__proto__":{"calls":[]}}' },
      /is JSON with a `__proto__` key at __proto__/,
    ],
  ])('a 200 answer that is %s is api_bad_response', async (_name, answer, message) => {
    stub.route(/^POST \/v1\/chat$/, () => answer);
    const err = await failure(client.chat({ message: 'hi' }));
    expect(err.code).toBe('api_bad_response');
    expect(err.message).toMatch(message);
  });

  test('no answer within timeoutMs is api_timeout', async () => {
    stub.route(/^POST \/v1\/chat$/, () => 'hang');
    const quick = createApiClient({ url: stub.url, token: TOKEN, timeoutMs: 200 });
    const started = Date.now();
    const err = await failure(quick.chat({ message: 'hi' }));
    expect(err.code).toBe('api_timeout');
    expect(err.message).toBe(`the brain at ${stub.url} did not answer POST /v1/chat within 200 ms`);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('nothing listening is api_unreachable with a hint to start the stack', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const err = await failure(createApiClient({ url, token: TOKEN }).tools());
    expect(err.code).toBe('api_unreachable');
    expect(err.httpStatus).toBeUndefined();
    expect(err.message).toBe(
      `cannot reach the brain at ${url}: is \`caesar up\` running? (ECONNREFUSED)`,
    );
  });

  test.each([
    ['declared by Content-Length', { 'content-length': String(3000) }],
    ['streamed without a length', { 'transfer-encoding': 'chunked' }],
  ])('an answer over maxResponseBytes is refused (%s)', async (_name, headers) => {
    stub.route(/^GET \/v1\/tools$/, () => ({ status: 200, raw: `[${' '.repeat(2998)}]`, headers }));
    const small = createApiClient({ url: stub.url, token: TOKEN, maxResponseBytes: 1000 });
    const err = await failure(small.tools());
    expect(err.code).toBe('api_response_too_large');
    expect(err.message).toMatch(/larger than 1000 bytes/);
  });

  test('a redirect is not followed: it is an error answer with its status', async () => {
    stub.route(/^GET \/v1\/tools$/, () => ({
      status: 302,
      raw: '',
      headers: { location: 'http://127.0.0.1:1/elsewhere' },
    }));
    const err = await failure(client.tools());
    expect(err).toMatchObject({
      code: 'api_bad_response',
      remoteCode: 'http_302',
      httpStatus: 302,
    });
    expect(stub.requests).toHaveLength(1);
  });

  test('no error message carries the token', async () => {
    stub.route(/^GET \/v1\/tools$/, () => ({ status: 500, raw: 'x' }));
    const errs = [
      await failure(client.tools()),
      await failure(createApiClient({ url: 'http://127.0.0.1:1', token: TOKEN }).tools()),
    ];
    for (const e of errs) expect(`${e.message} ${String(e.cause)}`).not.toContain(TOKEN);
  });
});

describe('API client: streamed chat', () => {
  const RESPONSE: ChatResponse = {
    session_id: 's-1',
    reply: 'It is 391.',
    tool_calls: [report({ tool: 'calculator' })],
    iterations: 2,
    capped: false,
    planner: 'llm',
  };
  const TURN: ChatEvent[] = [
    { type: 'tool_call', call_id: 'c1', tool: 'calculator', input: { expression: '17*23' } },
    { type: 'tool_result', call_id: 'c1', report: report({ tool: 'calculator' }) },
    { type: 'text', delta: 'It is 391.' },
  ];

  async function streamed(frames: Iterable<string> | AsyncIterable<string>) {
    stub.route(/^POST \/v1\/chat$/, () => ({ sse: frames }));
    const events: ChatEvent[] = [];
    const res = await client.chat({ message: 'hi' }, { onEvent: (e) => events.push(e) });
    return { res, events };
  }

  test('asks for the event stream, hands each event over in order, resolves with done', async () => {
    const { res, events } = await streamed([
      ...TURN.map(sseFrame),
      sseFrame({ type: 'done', response: RESPONSE }),
    ]);
    expect(events).toEqual(TURN);
    expect(res).toEqual(RESPONSE);
    expect(stub.requests[0]!.headers.accept).toBe('text/event-stream, application/json;q=0.5');
  });

  test('reads frames however they are cut: byte by byte, CRLF, CR, comments, split data, unknown events', async () => {
    const wire =
      ': ping\r\n\r\n' +
      'event: progress\r\ndata: {"step":1}\r\n\r\n' +
      'id: 7\r\nevent: text\r\ndata: {"delta":\r\ndata: "Hé ✓"}\r\n\r\n' +
      'event:text\rdata:{"delta":"llo"}\r\r' +
      'event: text\ndata: {"delta":"!"}\n\n' +
      'event: text\ndata: {"delta":"never complete"}\n';
    const bytes = Buffer.from(wire, 'utf8');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(Uint8Array.of(byte));
        controller.close();
      },
    });
    const seen: Array<{ event: string; data: string }> = [];
    for await (const e of sseEvents(new Response(body), 10_000, 'test')) seen.push(e);
    expect(seen).toEqual([
      { event: 'progress', data: '{"step":1}' },
      { event: 'text', data: '{"delta":\n"Hé ✓"}' },
      { event: 'text', data: '{"delta":"llo"}' },
      { event: 'text', data: '{"delta":"!"}' },
    ]);
  });

  test('unknown events and comments are skipped by the client', async () => {
    const { res, events } = await streamed([
      ': ping\n\n',
      'event: progress\ndata: {"step":1}\n\n',
      sseFrame({ type: 'text', delta: 'ok' }),
      sseFrame({ type: 'done', response: RESPONSE }),
    ]);
    expect(events).toEqual([{ type: 'text', delta: 'ok' }]);
    expect(res).toEqual(RESPONSE);
  });

  test('an error event rejects with its code and says the answer broke off', async () => {
    const err = await failure(
      streamed([
        sseFrame({ type: 'text', delta: 'x' }),
        sseFrame({ type: 'error', error: { code: 'internal', message: 'internal error' } }),
      ]),
    );
    expect(err).toMatchObject({ code: 'internal', httpStatus: undefined, retryable: false });
    expect(err.message).toBe(
      'the brain failed mid-answer: internal: internal error (request req-sse)',
    );
  });

  test.each([
    ['ends without done', [sseFrame({ type: 'text', delta: 'x' })], /ended before its done event/],
    ['carries data that is not JSON', ['event: text\ndata: nope\n\n'], /is not JSON/],
    [
      'carries data with a prototype key (the one JSON ladder, issue 30)',
      ['event: text\ndata: {"delta":"x","__proto__":{"type":"done"}}\n\n'],
      /text event .* is JSON with a `__proto__` key/,
    ],
    [
      'carries an event of the wrong shape',
      ['event: tool_result\ndata: {"call_id":1}\n\n'],
      /tool_result event .* does not match the API contract/,
    ],
  ])('a stream that %s is api_bad_response', async (_why, frames, message) => {
    const err = await failure(streamed(frames));
    expect(err.code).toBe('api_bad_response');
    expect(err.message).toMatch(message);
  });

  test('a stream over maxResponseBytes is refused', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      sse: Array.from({ length: 50 }, () => sseFrame({ type: 'text', delta: 'x'.repeat(100) })),
    }));
    const small = createApiClient({ url: stub.url, token: TOKEN, maxResponseBytes: 1000 });
    const err = await failure(small.chat({ message: 'hi' }, { onEvent: () => undefined }));
    expect(err.code).toBe('api_response_too_large');
  });

  test('a stream that stops mid-turn runs into the timeout', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({
      sse: (async function* () {
        yield sseFrame({ type: 'text', delta: 'x' });
        await new Promise(() => undefined);
      })(),
    }));
    const quick = createApiClient({ url: stub.url, token: TOKEN, timeoutMs: 300 });
    const events: ChatEvent[] = [];
    const err = await failure(quick.chat({ message: 'hi' }, { onEvent: (e) => events.push(e) }));
    expect(events).toEqual([{ type: 'text', delta: 'x' }]);
    expect(err.code).toBe('api_timeout');
  });

  test('a brain that answers JSON instead is read as before, with no events', async () => {
    stub.route(/^POST \/v1\/chat$/, () => ({ status: 200, body: RESPONSE }));
    const events: ChatEvent[] = [];
    const res = await client.chat({ message: 'hi' }, { onEvent: (e) => events.push(e) });
    expect(res).toEqual(RESPONSE);
    expect(events).toEqual([]);
  });

  test('an error status to a stream request is the usual ApiError', async () => {
    stub.route(/^POST \/v1\/chat$/, () => httpError(404, 'session_not_found', 'no session s-9'));
    const err = await failure(client.chat({ message: 'hi' }, { onEvent: () => undefined }));
    expect(err).toMatchObject({
      httpStatus: 404,
      code: 'session_not_found',
      requestId: 'req-404',
    });
  });
});
