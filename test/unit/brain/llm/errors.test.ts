import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import {
  originOf,
  scrubDetail,
  toLlmError,
  type ErrorContext,
  type SdkErrors,
} from '../../../../src/brain/llm/errors.js';
import { WireFormatError } from '../../../../src/brain/llm/wire.js';

const KEY = 'sk-live-abcdef0123456789XYZW';
const NOW = Date.parse('2026-01-01T00:00:00Z');

function ctx(scope: Partial<ErrorContext['scope']> = {}): ErrorContext {
  return {
    provider: 'openai',
    origin: 'api.openai.com',
    apiKey: KEY,
    timeoutMs: 60_000,
    scope: { callerAborted: false, timedOut: false, ...scope },
    nowMs: NOW,
  };
}

const openAiStatus = (status: number, error: object, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, { error }, undefined, new Headers(headers));
const anthropicStatus = (
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) =>
  Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type, message } },
    undefined,
    new Headers(headers),
  );
const netError = (code: string) =>
  new OpenAI.APIConnectionError({
    cause: Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error(code), { code }),
    }),
  });

describe('toLlmError', () => {
  test.each<[string, SdkErrors, unknown, string, number | undefined, string]>([
    [
      '429',
      OpenAI,
      openAiStatus(
        429,
        { message: 'Rate limit reached', code: 'rate_limit_exceeded' },
        { 'retry-after': '7' },
      ),
      'rate_limited',
      429,
      '429 rate limited (retry after 7 s)',
    ],
    [
      '429 quota',
      OpenAI,
      openAiStatus(429, {
        message: 'quota',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      }),
      'quota',
      429,
      '429 quota exhausted',
    ],
    ['401', OpenAI, openAiStatus(401, { message: 'bad key' }), 'auth', 401, '401 API key refused'],
    ['403', OpenAI, openAiStatus(403, { message: 'no' }), 'auth', 403, '403 forbidden'],
    ['400', OpenAI, openAiStatus(400, { message: 'bad' }), 'bad_request', 400, '400 bad request'],
    [
      '404',
      OpenAI,
      openAiStatus(404, { message: 'The model `x` does not exist' }),
      'bad_request',
      404,
      '404 not found (model or URL)',
    ],
    ['422', OpenAI, openAiStatus(422, { message: 'x' }), 'bad_request', 422, '422 bad request'],
    ['408', OpenAI, openAiStatus(408, { message: 'x' }), 'timeout', 408, '408 request timeout'],
    ['500', OpenAI, openAiStatus(500, { message: 'x' }), 'server', 500, '500 server error'],
    [
      '503',
      OpenAI,
      openAiStatus(503, { message: 'x' }, { 'retry-after': '1' }),
      'server',
      503,
      '503 unavailable (retry after 1 s)',
    ],
    [
      '529',
      Anthropic,
      anthropicStatus(529, 'overloaded_error', 'Overloaded'),
      'server',
      529,
      '529 overloaded',
    ],
    [
      'anthropic 429',
      Anthropic,
      anthropicStatus(429, 'rate_limit_error', 'slow down', { 'retry-after': '4' }),
      'rate_limited',
      429,
      '429 rate limited (retry after 4 s)',
    ],
    [
      'anthropic spend limit',
      Anthropic,
      Anthropic.APIError.generate(
        429,
        {
          type: 'error',
          error: {
            type: 'rate_limit_error',
            message: 'cap',
            details: { error_code: 'enforced_spend_limit_reached' },
          },
        },
        undefined,
        new Headers(),
      ),
      'quota',
      429,
      '429 quota exhausted',
    ],
    [
      'anthropic 402',
      Anthropic,
      anthropicStatus(402, 'billing_error', 'pay'),
      'quota',
      402,
      '402 quota exhausted',
    ],
    [
      'stream error event',
      Anthropic,
      new Anthropic.APIError(
        undefined,
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        undefined,
        new Headers(),
      ),
      'server',
      undefined,
      'overloaded mid-answer',
    ],
    ['refused', OpenAI, netError('ECONNREFUSED'), 'connect', undefined, 'connection refused'],
    ['dns', OpenAI, netError('ENOTFOUND'), 'connect', undefined, 'host not found'],
    ['tls', OpenAI, netError('DEPTH_ZERO_SELF_SIGNED_CERT'), 'connect', undefined, 'TLS error'],
    ['reset', OpenAI, netError('ECONNRESET'), 'server', undefined, 'connection dropped'],
    [
      'sdk timeout',
      OpenAI,
      new OpenAI.APIConnectionTimeoutError(),
      'timeout',
      undefined,
      'timed out after 60 s',
    ],
    [
      'body cut',
      OpenAI,
      new TypeError('terminated'),
      'server',
      undefined,
      'connection dropped mid-answer',
    ],
    [
      'not JSON',
      OpenAI,
      new SyntaxError('Unexpected token <'),
      'bad_response',
      undefined,
      'bad response',
    ],
    [
      'not the format',
      OpenAI,
      new WireFormatError('no choices'),
      'bad_response',
      undefined,
      'bad response',
    ],
  ])('%s', (_name, sdk, err, kind, status, summary) => {
    const e = toLlmError(err, sdk, ctx());
    expect([e.kind, e.options.status, e.options.summary]).toEqual([kind, status, summary]);
    expect(e.message.startsWith(`openai at api.openai.com: ${summary}`)).toBe(true);
  });

  test('the caller aborting wins over whatever the SDK threw; then the endpoint timeout', () => {
    const thrown = new OpenAI.APIUserAbortError();
    expect(toLlmError(thrown, OpenAI, ctx({ callerAborted: true })).kind).toBe('aborted');
    expect(toLlmError(thrown, OpenAI, ctx({ timedOut: true })).kind).toBe('timeout');
    expect(toLlmError(thrown, OpenAI, ctx()).kind).toBe('aborted');
  });

  test('Retry-After as milliseconds and as an HTTP date', () => {
    const ms = toLlmError(openAiStatus(429, {}, { 'retry-after-ms': '250' }), OpenAI, ctx());
    expect(ms.options.retryAfterMs).toBe(250);
    const date = new Date(NOW + 12_000).toUTCString();
    const at = toLlmError(openAiStatus(429, {}, { 'retry-after': date }), OpenAI, ctx());
    expect(at.options.retryAfterMs).toBe(12_000);
  });

  test('retryable: rate_limited, server and timeout only', () => {
    const kinds = (errs: unknown[]) => errs.map((e) => toLlmError(e, OpenAI, ctx()).retryable);
    expect(
      kinds([openAiStatus(429, {}), openAiStatus(500, {}), new OpenAI.APIConnectionTimeoutError()]),
    ).toEqual([true, true, true]);
    expect(
      kinds([
        openAiStatus(401, {}),
        openAiStatus(400, {}),
        netError('ECONNREFUSED'),
        new SyntaxError('x'),
      ]),
    ).toEqual([false, false, false, false]);
  });

  test('what the server said is kept, capped and scrubbed of the key', () => {
    const e = toLlmError(
      openAiStatus(401, { message: `Incorrect API key provided: ${KEY}. ${'z'.repeat(500)}` }),
      OpenAI,
      ctx(),
    );
    expect(e.message).not.toContain(KEY);
    expect(e.message).toContain('Incorrect API key provided: [redacted]');
    expect(e.message.length).toBeLessThan(300);
  });
});

describe('scrubDetail and originOf', () => {
  test.each([
    [`key ${KEY} here`, 'key [redacted] here'],
    ['masked sk-te********1234. next', 'masked [redacted] next'],
    ['Authorization: Bearer abc.def', 'Authorization: [redacted]'],
    ['  many\n\n spaces  ', 'many spaces'],
  ])('%j -> %j', (input, out) => {
    expect(scrubDetail(input, KEY)).toBe(out);
  });

  test.each([
    ['https://api.openai.com/v1', 'api.openai.com'],
    ['http://127.0.0.1:11434', '127.0.0.1:11434'],
    ['https://user:secret@llm.lan:8443/v1?x=1', 'llm.lan:8443'],
    ['not a url', '(bad URL)'],
  ])('origin of %s is %s', (url, origin) => {
    expect(originOf(url)).toBe(origin);
  });
});
