import { describe, expect, test } from 'vitest';
import {
  ChatEventSchema,
  ChatResponseSchema,
  HttpErrorSchema,
  type ChatEvent,
  type ChatOptions,
} from '../../../../src/brain/api/index.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { API_SCOPES } from '../../../../src/brain/api/tokens-file.js';
import { acceptsEventStream } from '../../../../src/brain/http/sse.js';
import { CaesarError } from '../../../../src/protocol/index.js';
import { report } from './fake-brain.js';
import { auth, CI, harness, type Harness } from './harness.js';
import { deferred, namedEvents, parseSse, StreamText } from './sse.js';

/** `POST /v1/chat` with `Accept: text/event-stream`. */

const SSE = { accept: 'text/event-stream' };
const streamed = (payload: object = { message: 'what is 1+1' }, token?: string) =>
  ({
    method: 'POST',
    url: '/v1/chat',
    headers: { ...auth(token), ...SSE },
    payload,
  }) as const;

const TURN: ChatEvent[] = [
  { type: 'text', delta: 'Let me ' },
  { type: 'tool_call', call_id: 'c1', tool: 'calculator', input: { expression: '1+1' } },
  {
    type: 'tool_result',
    call_id: 'c1',
    report: { ...report('calculator', { expression: '1+1' }, 'ok'), result: 2 },
  },
  { type: 'text', delta: 'see: 2' },
];

/** The options the brain's chat() got: the stream's onEvent and signal. */
function chatOptions(h: Harness): ChatOptions {
  const options = h.brain.callsTo('chat')[0]?.args[2] as ChatOptions | undefined;
  if (options === undefined) throw new Error('chat() was called without options');
  return options;
}

describe('streamed chat: framing', () => {
  test('each event is `event: <type>` and the JSON of the rest, in order, ending with done', async () => {
    await using h = await harness();
    h.brain.events = TURN;
    const res = await h.app.inject(streamed());
    expect(res.statusCode).toBe(200);
    const events = namedEvents(res.body);
    expect(events.map(([name]) => name)).toEqual([
      'text',
      'tool_call',
      'tool_result',
      'text',
      'done',
    ]);
    // Data carries no `type`: the event name is the type.
    expect(events.slice(0, 4).map(([name, data]) => ({ type: name, ...(data as object) }))).toEqual(
      TURN,
    );
    const done = events[4]![1] as { response: unknown };
    expect(Object.keys(done)).toEqual(['response']);
    expect(ChatResponseSchema.parse(done.response).reply).toBe('echo: what is 1+1');
    for (const [name, data] of events) ChatEventSchema.parse({ type: name, ...(data as object) });
  });

  test('the bytes on the wire are exactly the SSE form', async () => {
    await using h = await harness();
    h.brain.events = [{ type: 'text', delta: 'line one\nline "two"' }];
    const res = await h.app.inject(streamed({ message: 'hi' }));
    expect(
      res.body.startsWith('event: text\ndata: {"delta":"line one\\nline \\"two\\""}\n\n'),
    ).toBe(true);
    expect(res.body).toMatch(/\n\nevent: done\ndata: \{"response":\{.*\}\}\n\n$/);
  });

  test('headers: event stream, no caching, no proxy buffering, the request id', async () => {
    await using h = await harness();
    const res = await h.app.inject({
      ...streamed(),
      headers: { ...auth(), ...SSE, 'x-request-id': 'sse-1' },
    });
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, no-store');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['x-request-id']).toBe('sse-1');
  });

  test('the brain gets the same request and caller as unstreamed, plus onEvent and a signal', async () => {
    await using h = await harness();
    await h.app.inject({
      ...streamed({ message: 'hi', session_id: 'kitchen_1' }, CI),
      headers: { ...auth(CI), ...SSE, 'x-request-id': 'req-7' },
    });
    const [call] = h.brain.callsTo('chat');
    expect(call?.args.slice(0, 2)).toEqual([
      { message: 'hi', session_id: 'kitchen_1' },
      {
        actor: 'ci',
        requestId: 'req-7',
        sessionId: 'kitchen_1',
        principal: { name: 'ci', groups: [] },
      },
    ]);
    const options = chatOptions(h);
    expect(typeof options.onEvent).toBe('function');
    expect(options.signal).toBeInstanceOf(AbortSignal);
  });

  test('done and error events from the brain are not forwarded: the route writes the end', async () => {
    await using h = await harness();
    h.brain.events = [
      { type: 'text', delta: 'x' },
      { type: 'error', error: { code: 'internal', message: 'early' } },
      {
        type: 'done',
        response: {
          session_id: 's',
          reply: 'other',
          tool_calls: [],
          iterations: 0,
          capped: false,
          planner: 'none',
        },
      },
    ];
    const res = await h.app.inject(streamed());
    expect(namedEvents(res.body).map(([name]) => name)).toEqual(['text', 'done']);
  });

  test('a turn with no events is one done event', async () => {
    await using h = await harness();
    const res = await h.app.inject(streamed());
    expect(namedEvents(res.body).map(([name]) => name)).toEqual(['done']);
  });
});

describe('streamed chat: what still answers JSON', () => {
  test.each([
    ['no Accept header', undefined],
    ['Accept: application/json', 'application/json'],
    ['Accept: */*', '*/*'],
    ['text/event-stream with q=0', 'text/event-stream;q=0, application/json'],
  ])(
    '%s: the plain ChatResponse; chat() gets no listener, only the client-gone signal',
    async (_why, accept) => {
      await using h = await harness();
      const res = await h.app.inject({
        method: 'POST',
        url: '/v1/chat',
        headers: { ...auth(), ...(accept === undefined ? {} : { accept }) },
        payload: { message: 'hi' },
      });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(ChatResponseSchema.parse(res.json()).reply).toBe('echo: hi');
      const options = h.brain.callsTo('chat')[0]?.args[2] as ChatOptions;
      expect(Object.keys(options)).toEqual(['signal']);
      // the answer was written before the client left: the turn was not cancelled
      expect(options.signal?.aborted).toBe(false);
    },
  );

  test.each([
    ['text/event-stream', true],
    ['Text/Event-Stream', true],
    ['application/json, text/event-stream;q=0.5', true],
    ['text/event-stream; charset=utf-8', true],
    ['text/event-stream;q=0', false],
    ['text/event-stream;q=0.0', false],
    ['text/*', false],
    ['application/json', false],
    ['', false],
  ])('acceptsEventStream(%j) is %s', (accept, expected) => {
    expect(acceptsEventStream(accept)).toBe(expected);
  });

  test.each([
    ['no token', {}, 401, 'unauthorized'],
    [
      'an unknown token',
      { authorization: 'Bearer nope-nope-nope-nope-nope-nope' },
      401,
      'unauthorized',
    ],
  ])('%s is a plain %i JSON error', async (_why, headers, status, code) => {
    await using h = await harness();
    const res = await h.app.inject({ ...streamed(), headers: { ...headers, ...SSE } });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(HttpErrorSchema.parse(res.json()).error.code).toBe(code);
    expect(h.brain.calls).toEqual([]);
  });

  test('a token without the chat scope is a plain 403', async () => {
    const others = API_SCOPES.filter((s) => s !== 'chat');
    await using h = await harness({
      tokens: TokenStore.from([
        { name: 'reader', token: 'reader-token-0123456789abcdefghij', scopes: others },
      ]),
    });
    const res = await h.app.inject(streamed(undefined, 'reader-token-0123456789abcdefghij'));
    expect(res.statusCode).toBe(403);
    expect(HttpErrorSchema.parse(res.json()).error.code).toBe('forbidden');
    expect(h.brain.calls).toEqual([]);
  });

  test('over the rate limit is a plain 429, like the unstreamed route', async () => {
    await using h = await harness({ rateLimitPerMinute: 1 });
    expect((await h.app.inject(streamed())).statusCode).toBe(200);
    const limited = await h.app.inject(streamed());
    expect(limited.statusCode).toBe(429);
    expect(HttpErrorSchema.parse(limited.json()).error.code).toBe('too_many_requests');
    expect(h.brain.callsTo('chat')).toHaveLength(1);
  });

  test.each([
    ['a forged role', { message: 'hi', role: 'system' }, 'role'],
    ['a message over the limit', { message: 'x'.repeat(101) }, 'message'],
  ])('%s is a plain 400 naming the field', async (_why, payload, path) => {
    await using h = await harness();
    const res = await h.app.inject(streamed(payload));
    expect(res.statusCode).toBe(400);
    const details = HttpErrorSchema.parse(res.json()).error.details as Array<{ path: string }>;
    expect(details.map((d) => d.path)).toEqual([path]);
    expect(h.brain.calls).toEqual([]);
  });
});

describe('streamed chat: failures', () => {
  test.each([
    [
      'a coded error (unknown session)',
      new CaesarError('session_not_found', 'no session s-9'),
      404,
      'session_not_found',
    ],
    ['a bug', new Error('sqlite said something private'), 500, 'internal'],
  ])('%s before the first byte is a plain HTTP error', async (_why, err, status, code) => {
    await using h = await harness();
    h.brain.fail('chat', err);
    const res = await h.app.inject(streamed());
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = HttpErrorSchema.parse(res.json());
    expect(body.error.code).toBe(code);
    expect(res.body).not.toContain('private');
  });

  test('a bug after the first byte ends the stream with an error event, logged with its stack', async () => {
    await using h = await harness();
    h.brain.events = [{ type: 'text', delta: 'par' }];
    h.brain.failLate = new Error('sqlite said something private');
    const res = await h.app.inject(streamed());
    expect(res.statusCode).toBe(200);
    expect(namedEvents(res.body)).toEqual([
      ['text', { delta: 'par' }],
      ['error', { error: { code: 'internal', message: 'internal error' } }],
    ]);
    expect(res.body).not.toContain('private');
    const line = h
      .logText()
      .split('\n')
      .find((l) => l.includes('"request failed"'));
    expect(JSON.parse(line!).error.stack).toMatch(/sqlite said something private\n\s+at /);
  });

  test('a coded error after the first byte keeps its code and message', async () => {
    await using h = await harness();
    h.brain.events = [{ type: 'text', delta: 'par' }];
    h.brain.failLate = new CaesarError('dispatch_timeout', 'calculator did not answer in 5 s');
    const res = await h.app.inject(streamed());
    expect(namedEvents(res.body).at(-1)).toEqual([
      'error',
      { error: { code: 'dispatch_timeout', message: 'calculator did not answer in 5 s' } },
    ]);
  });
});

describe('streamed chat: heartbeats and the client leaving', () => {
  test('a quiet turn gets heartbeat comments, which commit the stream; the end still comes', async () => {
    await using h = await harness({ heartbeatMs: 10 });
    const held = deferred();
    h.brain.hold = held.promise;
    // The response (status and headers) arrives with the first heartbeat: nothing else is sent.
    const res = await h.app.inject({ ...streamed(), payloadAsStream: true });
    expect(res.statusCode).toBe(200);
    const body = new StreamText(res.stream());
    await body.until((t) => t.split(': ping\n\n').length > 2);
    held.resolve();
    const frames = parseSse(await body.all());
    const pings = frames.filter((f) => f.kind === 'comment');
    expect(pings.length).toBeGreaterThanOrEqual(2);
    expect(pings.every((f) => f.text === 'ping')).toBe(true);
    expect(frames.at(-1)).toMatchObject({ kind: 'event', event: 'done' });
  });

  test('a failure after only heartbeats is an error event, not an HTTP error', async () => {
    await using h = await harness({ heartbeatMs: 10 });
    const held = deferred();
    h.brain.hold = held.promise;
    h.brain.failLate = new CaesarError('dispatch_timeout', 'too slow');
    const res = await h.app.inject({ ...streamed(), payloadAsStream: true });
    const body = new StreamText(res.stream());
    await body.until((t) => t.includes(': ping'));
    held.resolve();
    expect(namedEvents(await body.all())).toEqual([
      ['error', { error: { code: 'dispatch_timeout', message: 'too slow' } }],
    ]);
  });
});
