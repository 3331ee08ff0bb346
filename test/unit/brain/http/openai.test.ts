import type { InjectOptions } from 'fastify';
import { describe, expect, test } from 'vitest';
import type { ChatEvent, ChatOptions, CompletionRequest } from '../../../../src/brain/api/index.js';
import {
  ChatCompletionChunkSchema,
  ChatCompletionSchema,
  ModelListSchema,
  OpenAiErrorSchema,
} from '../../../../src/brain/api/openai.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { API_SCOPES } from '../../../../src/brain/api/tokens-file.js';
import { compatActor } from '../../../../src/brain/http/openai-compat.js';
import { CaesarError } from '../../../../src/protocol/index.js';
import { report } from './fake-brain.js';
import { auth, CI, harness, type Harness } from './harness.js';
import { parseSse } from './sse.js';

/** `GET /v1/models` and `POST /v1/chat/completions`, the OpenAI-compatible face. */

const URL_COMPLETIONS = '/v1/chat/completions';
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });

const completion = (payload: object, headers: Record<string, string> = auth()) =>
  ({
    method: 'POST',
    url: URL_COMPLETIONS,
    headers,
    payload: payload as InjectOptions['payload'],
  }) as const;

const ask = (extra: object = {}) => ({ model: 'gpt-4o', messages: [user('hi')], ...extra });

function completeCall(h: Harness): {
  request: CompletionRequest;
  caller: unknown;
  options?: ChatOptions;
} {
  const call = h.brain.callsTo('complete')[0];
  if (call === undefined) throw new Error('complete() was not called');
  const [request, caller, options] = call.args as [CompletionRequest, unknown, ChatOptions?];
  return { request, caller, ...(options === undefined ? {} : { options }) };
}

/** The data of each `data:` event of a compat stream, `[DONE]` kept as the string. */
function dataEvents(body: string): unknown[] {
  return parseSse(body)
    .filter((f) => f.kind === 'event')
    .map((f) => {
      expect(f.event).toBeUndefined(); // OpenAI streams use unnamed events
      return f.data === '[DONE]' ? '[DONE]' : (JSON.parse(f.data) as unknown);
    });
}

describe('GET /v1/models', () => {
  test('lists the one model, caesar, with a fixed created time', async () => {
    await using h = await harness();
    const first = await h.app.inject({ url: '/v1/models', headers: auth() });
    expect(first.statusCode).toBe(200);
    expect(ModelListSchema.parse(first.json())).toEqual({
      object: 'list',
      data: [{ id: 'caesar', object: 'model', created: 1_767_225_600, owned_by: 'caesar' }],
    });
    const again = await h.app.inject({ url: '/v1/models', headers: auth() });
    expect(again.json()).toEqual(first.json());
  });
});

describe('POST /v1/chat/completions, not streamed', () => {
  test('answers a chat.completion with the reply, as model caesar whatever was asked', async () => {
    await using h = await harness();
    const res = await h.app.inject(completion(ask({ model: 'gpt-4o-mini' })));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = ChatCompletionSchema.parse(res.json());
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'caesar',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'echo: hi', refusal: null },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
    expect(body.id).toMatch(/^chatcmpl-[A-Za-z0-9_-]{24}$/);
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(600);
  });

  test('earlier messages become history; the last user message is the one asked', async () => {
    await using h = await harness({ heartbeatMs: 60_000 });
    await h.app.inject(
      completion(
        ask({
          messages: [
            user('what is 2+2'),
            assistant('4'),
            user([
              { type: 'text', text: 'and times' },
              { type: 'text', text: 'three?' },
            ]),
          ],
        }),
        { ...auth(CI), 'x-request-id': 'oa-1' },
      ),
    );
    const call = completeCall(h);
    expect(call.request).toEqual({
      history: [
        { role: 'user', content: 'what is 2+2' },
        { role: 'assistant', content: '4' },
      ],
      message: 'and times\nthree?',
    });
    expect(call.caller).toEqual({
      actor: 'ci',
      requestId: 'oa-1',
      principal: { name: 'ci', groups: [] },
    });
    // no listener; the signal that fires if the client leaves before the answer
    expect(call.options?.onEvent).toBeUndefined();
    expect(call.options?.signal?.aborted).toBe(false);
  });

  test('each id is new', async () => {
    await using h = await harness();
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      ids.add(ChatCompletionSchema.parse((await h.app.inject(completion(ask()))).json()).id);
    }
    expect(ids.size).toBe(3);
  });

  test('unknown fields clients send are ignored', async () => {
    await using h = await harness();
    const res = await h.app.inject(
      completion(
        ask({
          temperature: 0.2,
          top_p: 0.9,
          presence_penalty: 0,
          frequency_penalty: 0,
          seed: 7,
          stop: ['\n\n'],
          logit_bias: {},
          metadata: { chat_id: 'x' },
          response_format: { type: 'text' },
          stream_options: { include_usage: true },
          max_tokens: 256,
          max_completion_tokens: 256,
          n: 1,
          tools: [],
          tool_choice: 'auto',
          parallel_tool_calls: false,
          messages: [{ role: 'user', content: 'hi', name: 'alice' }],
        }),
      ),
    );
    expect(res.statusCode).toBe(200);
    expect(completeCall(h).request).toEqual({ history: [], message: 'hi' });
  });

  test('a long assistant message in the history is accepted (only user messages are capped)', async () => {
    await using h = await harness();
    const res = await h.app.inject(
      completion(ask({ messages: [user('hi'), assistant('y'.repeat(500)), user('more')] })),
    );
    expect(res.statusCode).toBe(200);
  });
});

describe('the `user` field', () => {
  test.each([
    ['alice', 'operator/alice'],
    ['alice@example.org', 'operator/alice@example.org'],
    ['Alice Smith <script>', 'operator/Alice_Smith_script_'],
    ['a/b\n', 'operator/a_b_'],
    ['x'.repeat(100), `operator/${'x'.repeat(64)}`],
    ['   ', 'operator'],
    ['', 'operator'],
    [null, 'operator'],
    [undefined, 'operator'],
  ])('user %j is recorded as actor %j', (given, actor) => {
    expect(compatActor('operator', given)).toBe(actor);
  });

  test('reaches the brain as the caller actor, token name first', async () => {
    await using h = await harness();
    await h.app.inject(completion(ask({ user: 'user-42' })));
    expect(completeCall(h).caller).toMatchObject({ actor: 'operator/user-42' });
  });
});

describe('refusals: 400 in OpenAI error shape, naming the field, never reaching the brain', () => {
  const fn = { type: 'function', function: { name: 'shell', parameters: {} } };
  test.each([
    ['client tools', ask({ tools: [fn] }), 'tools', /tools run inside CAESAR/],
    ['legacy functions', ask({ functions: [{ name: 'shell' }] }), 'functions', /tools run/],
    ['tool_choice required', ask({ tool_choice: 'required' }), 'tool_choice', /tools run/],
    ['a named tool_choice', ask({ tool_choice: fn }), 'tool_choice', /tools run/],
    ['a function_call', ask({ function_call: { name: 'shell' } }), 'function_call', /tools run/],
    ['n = 2', ask({ n: 2 }), 'n', /one answer per request/],
    [
      'a system message',
      ask({ messages: [{ role: 'system', content: 'obey' }, user('hi')] }),
      'messages[0].role',
      /'system' messages are refused: CAESAR keeps its own system prompt/,
    ],
    [
      'a developer message',
      ask({ messages: [{ role: 'developer', content: 'obey' }, user('hi')] }),
      'messages[0].role',
      /'developer' messages are refused/,
    ],
    [
      'a tool message',
      ask({
        messages: [user('hi'), { role: 'tool', tool_call_id: 'c', content: '{}' }, user('x')],
      }),
      'messages[1].role',
      /'tool' messages are refused: tools run inside CAESAR/,
    ],
    [
      'a function message',
      ask({ messages: [{ role: 'function', name: 'f', content: '1' }, user('x')] }),
      'messages[0].role',
      /'function' messages are refused/,
    ],
    [
      'an unknown role',
      ask({ messages: [{ role: 'critic', content: 'x' }] }),
      'messages[0].role',
      /expected 'user' or 'assistant'/,
    ],
    [
      'assistant tool calls',
      ask({
        messages: [
          user('hi'),
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: fn.function }],
          },
          user('x'),
        ],
      }),
      'messages[1].tool_calls',
      /cannot supply tool calls/,
    ],
    [
      'an image part',
      ask({
        messages: [
          user([
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ]),
        ],
      }),
      'messages[0].content[1].type',
      /'image_url' content parts are refused: only text/,
    ],
    [
      'an audio part',
      ask({
        messages: [user([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }])],
      }),
      'messages[0].content[0].type',
      /'input_audio' content parts are refused/,
    ],
    [
      'a text part without text',
      ask({ messages: [user([{ type: 'text' }])] }),
      'messages[0].content[0].text',
      /expected a string/,
    ],
    [
      'a null content',
      ask({ messages: [user(null)] }),
      'messages[0].content',
      /expected a string or an array of text parts/,
    ],
    [
      'an assistant message last',
      ask({ messages: [user('hi'), assistant('Sure, ')] }),
      'messages[1].role',
      /the last message must be the user's/,
    ],
    ['an empty last message', ask({ messages: [user('  ')] }), 'messages[0].content', /empty/],
    [
      'a user message over the limit',
      ask({ messages: [user('x'.repeat(101))] }),
      'messages[0].content',
      /at most 100 characters \(got 101\)/,
    ],
    [
      'a history user message over the limit',
      ask({ messages: [user('x'.repeat(101)), assistant('ok'), user('hi')] }),
      'messages[0].content',
      /at most 100 characters/,
    ],
    [
      'a text-parts message over the limit',
      ask({
        messages: [
          user([
            { type: 'text', text: 'x'.repeat(60) },
            { type: 'text', text: 'y'.repeat(60) },
          ]),
        ],
      }),
      'messages[0].content',
      /at most 100 characters \(got 121\)/,
    ],
    ['no messages', { model: 'caesar' }, 'messages', /expected array/],
    ['an empty messages list', ask({ messages: [] }), 'messages', /at least one message/],
    ['no model', { messages: [user('hi')] }, 'model', /expected string/],
    ['a non-boolean stream', ask({ stream: 'yes' }), 'stream', /expected boolean/],
    ['max_tokens 0', ask({ max_tokens: 0 }), 'max_tokens', /.+/],
    [
      'a fractional max_completion_tokens',
      ask({ max_completion_tokens: 1.5 }),
      'max_completion_tokens',
      /.+/,
    ],
  ])('%s', async (_why, payload, param, message) => {
    await using h = await harness();
    const res = await h.app.inject(completion(payload));
    expect(res.statusCode).toBe(400);
    const body = OpenAiErrorSchema.parse(res.json());
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.param).toBe(param);
    expect(body.error.message).toContain(`${param}: `);
    expect(body.error.message).toMatch(message);
    expect(h.brain.calls).toEqual([]);
  });

  test('a streamed request is refused the same way, before any stream', async () => {
    await using h = await harness();
    const res = await h.app.inject(completion(ask({ stream: true, tools: [fn] })));
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(OpenAiErrorSchema.parse(res.json()).error.param).toBe('tools');
  });
});

describe('errors in OpenAI shape', () => {
  const scoped = (scopes: (typeof API_SCOPES)[number][]) =>
    harness({
      tokens: TokenStore.from([
        { name: 'scoped', token: 'scoped-token-0123456789abcdefghij', scopes },
      ]),
    });
  const ROUTES = [
    { method: 'GET', url: '/v1/models' },
    { method: 'POST', url: URL_COMPLETIONS, payload: ask() },
    { method: 'POST', url: URL_COMPLETIONS, payload: ask({ stream: true }) },
  ] as const;

  test.each(ROUTES)('$method $url: 401 without a token and with a wrong one', async (route) => {
    await using h = await harness();
    for (const headers of [{}, { authorization: 'Bearer wrong-wrong-wrong-wrong-wrong' }]) {
      const res = await h.app.inject({ ...route, headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="caesar"/);
      expect(OpenAiErrorSchema.parse(res.json()).error).toMatchObject({
        type: 'authentication_error',
        code: 'unauthorized',
        param: null,
      });
    }
    expect(h.brain.calls).toEqual([]);
  });

  test.each(ROUTES)(
    '$method $url: 403 for a token without the chat scope; 2xx with it',
    async (route) => {
      await using h = await scoped(API_SCOPES.filter((s) => s !== 'chat'));
      const headers = auth('scoped-token-0123456789abcdefghij');
      const res = await h.app.inject({ ...route, headers });
      expect(res.statusCode).toBe(403);
      expect(OpenAiErrorSchema.parse(res.json()).error).toMatchObject({
        type: 'permission_error',
        code: 'forbidden',
        message: expect.stringContaining("lacks the 'chat' scope"),
      });
      expect(h.brain.calls).toEqual([]);
      await using ok = await scoped(['chat']);
      expect((await ok.app.inject({ ...route, headers })).statusCode).toBe(200);
    },
  );

  test('429 over the rate limit, with Retry-After', async () => {
    await using h = await harness({ rateLimitPerMinute: 1 });
    expect((await h.app.inject(completion(ask()))).statusCode).toBe(200);
    const res = await h.app.inject(completion(ask()));
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(OpenAiErrorSchema.parse(res.json()).error).toMatchObject({
      type: 'rate_limit_error',
      code: 'too_many_requests',
    });
  });

  test.each([
    [
      'a body over the limit',
      JSON.stringify(ask({ pad: 'x'.repeat(5000) })),
      'application/json',
      413,
      'body_too_large',
    ],
    ['a text/plain body', 'hi', 'text/plain', 415, 'unsupported_media_type'],
    ['invalid JSON', '{"model":', 'application/json', 400, 'invalid_request'],
  ])('%s is %i %s', async (_why, payload, type, status, code) => {
    await using h = await harness();
    const real = await h.app.inject({
      method: 'POST',
      url: URL_COMPLETIONS,
      headers: { ...auth(), 'content-type': type },
      payload,
    });
    expect(real.statusCode).toBe(status);
    expect(OpenAiErrorSchema.parse(real.json()).error).toMatchObject({
      type: 'invalid_request_error',
      code,
    });
  });

  test('a bug is 500 server_error without its message', async () => {
    await using h = await harness();
    h.brain.fail('complete', new Error('sqlite said something private'));
    const res = await h.app.inject(completion(ask()));
    expect(res.statusCode).toBe(500);
    expect(OpenAiErrorSchema.parse(res.json())).toEqual({
      error: { message: 'internal error', type: 'server_error', param: null, code: 'internal' },
    });
    expect(h.logText()).toContain('sqlite said something private'); // in the log, with the stack
  });

  test('a coded CaesarError keeps its status and code', async () => {
    await using h = await harness();
    h.brain.fail('complete', new CaesarError('dispatch_timeout', 'too slow'));
    const res = await h.app.inject(completion(ask()));
    expect(res.statusCode).toBe(504);
    expect(OpenAiErrorSchema.parse(res.json()).error).toMatchObject({
      message: 'too slow',
      type: 'server_error',
      code: 'dispatch_timeout',
    });
  });

  test('/v1/chat keeps the CAESAR error shape', async () => {
    await using h = await harness();
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/chat',
      headers: auth(),
      payload: {},
    });
    expect(res.json()).toMatchObject({
      error: { code: 'invalid_request' },
      request_id: expect.any(String),
    });
  });
});

describe('POST /v1/chat/completions, streamed', () => {
  const TURN: ChatEvent[] = [
    { type: 'text', delta: 'Let me check. ' },
    { type: 'tool_call', call_id: 'c1', tool: 'web_search', input: { q: 'secret-query' } },
    {
      type: 'tool_result',
      call_id: 'c1',
      report: { ...report('web_search', { q: 'secret-query' }, 'ok'), result: 'found' },
    },
    { type: 'text', delta: 'Found it.' },
  ];

  test('chunks: the role, each text delta, stop, then [DONE]; tool events are not sent', async () => {
    await using h = await harness();
    h.brain.events = TURN;
    const res = await h.app.inject(completion(ask({ stream: true })));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, no-store');
    const events = dataEvents(res.body);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => ChatCompletionChunkSchema.parse(e));
    expect(chunks.map((c) => c.choices[0])).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: 'Let me check. ' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: 'Found it.' }, logprobs: null, finish_reason: null },
      { index: 0, delta: {}, logprobs: null, finish_reason: 'stop' },
    ]);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
    expect(chunks.every((c) => c.model === 'caesar' && c.object === 'chat.completion.chunk')).toBe(
      true,
    );
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    expect(res.body).not.toContain('web_search');
    expect(res.body).not.toContain('secret-query');
    expect(typeof completeCall(h).options?.onEvent).toBe('function');
  });

  test('a turn that streamed no text (an intent reply) sends the reply as one delta', async () => {
    await using h = await harness();
    const res = await h.app.inject(completion(ask({ stream: true, messages: [user('hello')] })));
    const chunks = dataEvents(res.body)
      .slice(0, -1)
      .map((e) => ChatCompletionChunkSchema.parse(e));
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'echo: hello' },
      {},
    ]);
  });

  test('include_usage: usage null on every chunk, then a usage chunk with no choices, then [DONE]', async () => {
    await using h = await harness();
    h.brain.events = [{ type: 'text', delta: 'hi' }];
    const res = await h.app.inject(
      completion(ask({ stream: true, stream_options: { include_usage: true } })),
    );
    const events = dataEvents(res.body);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => ChatCompletionChunkSchema.parse(e));
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  test('a failure after the first byte is an error data event and no [DONE]', async () => {
    await using h = await harness();
    h.brain.events = [{ type: 'text', delta: 'par' }];
    h.brain.failLate = new CaesarError('dispatch_timeout', 'too slow');
    const res = await h.app.inject(completion(ask({ stream: true })));
    expect(res.statusCode).toBe(200);
    const events = dataEvents(res.body);
    expect(events).not.toContain('[DONE]');
    expect(OpenAiErrorSchema.parse(events.at(-1))).toEqual({
      error: { message: 'too slow', type: 'server_error', param: null, code: 'dispatch_timeout' },
    });
  });

  test('a failure before the first byte is a plain HTTP error in OpenAI shape', async () => {
    await using h = await harness();
    h.brain.fail('complete', new CaesarError('no_worker', 'no calculator worker'));
    const res = await h.app.inject(completion(ask({ stream: true })));
    expect(res.statusCode).toBe(503);
    expect(OpenAiErrorSchema.parse(res.json()).error.code).toBe('no_worker');
  });
});
