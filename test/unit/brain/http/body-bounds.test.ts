import { describe, expect, test } from 'vitest';
import { HttpErrorSchema } from '../../../../src/brain/api/index.js';
import { MAX_NESTING_DEPTH } from '../../../../src/text/index.js';
import { auth, harness } from './harness.js';

// Issue 11, findings 7 and 10: a deeply nested body is a 400 naming the bound and where it
// was crossed, before any route (or the gateway's `tool.called`) sees it; a body with a
// `__proto__` key is a 400 that says so, not "not valid JSON".

/** `levels` nested arrays as JSON text: `[[[...]]]`. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** JSON text of a body whose top-level object is depth 1 and `input` nests to `depth`. */
const invokeBody = (depth: number) => `{"input":{"a":${arrays(depth - 2)}}}`;

const headers = { ...auth(), 'content-type': 'application/json' };

/** Every route that takes a body, with its body's nesting around the deep value `x`. */
const BODY_ROUTES = [
  ['/v1/chat', 1, (deep: string) => `{"message":"hi","x":${deep}}`],
  ['/v1/tools/calculator/invoke', 2, (deep: string) => `{"input":{"x":${deep}}}`],
  ['/v1/confirmations/c-1', 1, (deep: string) => `{"approve":true,"x":${deep}}`],
  ['/v1/policy/explain', 1, (deep: string) => `{"tool":"calculator","input":${deep}}`],
] as const;

describe('nesting depth of request bodies', () => {
  test.each(BODY_ROUTES)(
    'POST %s with a body nested one level past the bound is 400 naming the bound',
    async (url, around, wrap) => {
      await using h = await harness({ bodyLimitBytes: 1_048_576 });
      const payload = wrap(arrays(MAX_NESTING_DEPTH + 1 - around));
      const res = await h.app.inject({ method: 'POST', url, headers, payload });
      expect(res.statusCode).toBe(400);
      const body = HttpErrorSchema.parse(res.json());
      expect(body.error.code).toBe('invalid_request');
      // The innermost bracket is the 65th level.
      expect(body.error.message).toBe(
        `invalid request: body nests deeper than ${MAX_NESTING_DEPTH} levels at offset ${payload.lastIndexOf('[')}`,
      );
      expect(body.request_id).toBe(res.headers['x-request-id']);
      expect(h.brain.calls).toEqual([]);
    },
  );

  test.each(BODY_ROUTES)(
    'POST %s with a body exactly at the bound is not refused for its depth',
    async (url, around, wrap) => {
      await using h = await harness({ bodyLimitBytes: 1_048_576 });
      const payload = wrap(arrays(MAX_NESTING_DEPTH - around));
      const res = await h.app.inject({ method: 'POST', url, headers, payload });
      expect(res.body).not.toMatch(/nests deeper/);
    },
  );

  test('a 20 KB invoke body nested 4,200 levels is 400, not 500, and never reaches the brain', async () => {
    await using h = await harness({ bodyLimitBytes: 1_048_576 });
    const payload = invokeBody(4200);
    expect(payload.length).toBeGreaterThan(8000);
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/tools/calculator/invoke',
      headers,
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(HttpErrorSchema.parse(res.json()).error.message).toMatch(
      /^invalid request: body nests deeper than 64 levels at offset \d+$/,
    );
    expect(h.brain.calls).toEqual([]);
  });

  test('an invoke body exactly at the bound reaches the brain with its input intact', async () => {
    await using h = await harness({ bodyLimitBytes: 1_048_576 });
    const payload = invokeBody(MAX_NESTING_DEPTH);
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/tools/calculator/invoke',
      headers,
      payload,
    });
    expect(res.statusCode).toBe(200);
    const [call] = h.brain.callsTo('invoke');
    expect(call?.args[1]).toEqual((JSON.parse(payload) as { input: unknown }).input);
  });

  test('brackets inside strings do not count', async () => {
    await using h = await harness({ bodyLimitBytes: 1_048_576, messageMaxChars: 2000 });
    const payload = JSON.stringify({ message: '['.repeat(500) + '{'.repeat(500) });
    const res = await h.app.inject({ method: 'POST', url: '/v1/chat', headers, payload });
    expect(res.statusCode).toBe(200);
  });

  test('the OpenAI-compatible route answers a too-deep body in its own error shape', async () => {
    await using h = await harness({ bodyLimitBytes: 1_048_576 });
    const payload = `{"model":"caesar","messages":[{"role":"user","content":"hi"}],"x":${arrays(100)}}`;
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers,
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        message: expect.stringMatching(
          /^invalid request: body nests deeper than 64 levels at offset \d+$/,
        ),
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request',
      },
    });
    expect(h.brain.calls).toEqual([]);
  });
});

describe('prototype keys in request bodies', () => {
  test.each([
    [
      'a top-level __proto__',
      '{"message":"hi","__proto__":{"x":1}}',
      '/v1/chat',
      '__proto__',
      '__proto__',
    ],
    [
      'a __proto__ inside a tool input',
      '{"input":{"a":[{"__proto__":{"polluted":true}}]}}',
      '/v1/tools/calculator/invoke',
      'input.a[0].__proto__',
      '__proto__',
    ],
    [
      'constructor.prototype inside a tool input',
      '{"input":{"constructor":{"prototype":{"polluted":true}}}}',
      '/v1/tools/calculator/invoke',
      'input.constructor',
      'constructor',
    ],
    [
      'an escaped __proto__ key',
      '{"input":{"\\u005f_proto__":{"polluted":true}}}',
      '/v1/tools/calculator/invoke',
      'input.__proto__',
      '__proto__',
    ],
  ])('%s is 400 naming the key and where it is', async (_why, payload, url, path, key) => {
    await using h = await harness();
    const res = await h.app.inject({ method: 'POST', url, headers, payload });
    expect(res.statusCode).toBe(400);
    const body = HttpErrorSchema.parse(res.json());
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).not.toMatch(/not valid JSON/);
    expect(body.error.message).toContain(`\`${key}\``);
    expect(body.error.details).toEqual([{ path, message: expect.stringContaining('not allowed') }]);
    expect(h.brain.calls).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  test('a `constructor` key that is not an object with `prototype` is an ordinary key', async () => {
    await using h = await harness();
    const payload = '{"input":{"constructor":"x","prototype":{"a":1}}}';
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/tools/calculator/invoke',
      headers,
      payload,
    });
    expect(res.statusCode).toBe(200);
  });
});

// Issue 30: the body parser is the one JSON ladder; fastify's own refusals of an empty or a
// malformed body (in invalid_request's template, ADR 0087), and its tolerance of a byte order
// mark, are kept.
describe('bodies the ladder reads like fastify did', () => {
  test.each([
    ['an empty body', '', 'invalid request: JSON body is empty'],
    ['a malformed body', '{"input":', 'invalid request: body is not valid JSON'],
  ])('%s is 400 invalid_request, saying which', async (_why, payload, message) => {
    await using h = await harness();
    const url = '/v1/tools/calculator/invoke';
    const res = await h.app.inject({ method: 'POST', url, headers, payload });
    expect(res.statusCode).toBe(400);
    const body = HttpErrorSchema.parse(res.json());
    expect(body.error).toMatchObject({ code: 'invalid_request', message });
    expect(h.brain.calls).toEqual([]);
  });

  test('a body that starts with a byte order mark is read', async () => {
    await using h = await harness();
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/tools/calculator/invoke',
      headers,
      payload: '\ufeff{"input":{"expression":"1+1"}}',
    });
    expect(res.statusCode).toBe(200);
    expect(h.brain.calls).toHaveLength(1);
  });
});
