import { describe, expect, test } from 'vitest';
import { DEFAULT_BACKOFF, jitteredDelay, retryDelay } from '../../../../src/brain/llm/backoff.js';
import { LlmError } from '../../../../src/brain/llm/types.js';
import { parseRetryAfter } from '../../../../src/brain/llm/retry-after.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const headers = (h: Record<string, string>) => new Headers(h);

describe('parseRetryAfter', () => {
  test.each<[Record<string, string>, number | undefined]>([
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after': '1.5' }, 1500],
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after-ms': '250.4', 'retry-after': '9' }, 251],
    [{ 'retry-after-ms': 'soon', 'retry-after': '2' }, 2000],
    [{ 'retry-after': new Date(NOW + 30_000).toUTCString() }, 30_000],
    [{ 'retry-after': new Date(NOW - 30_000).toUTCString() }, 0],
    [{ 'retry-after': '-5' }, undefined],
    [{ 'retry-after': 'tomorrow-ish' }, undefined],
    [{ 'retry-after': '' }, undefined],
    [{}, undefined],
  ])('%j -> %s', (h, ms) => {
    expect(parseRetryAfter(headers(h), NOW)).toBe(ms);
  });

  test('no headers at all', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('backoff', () => {
  test('full jitter: uniform up to base * 2^retry, capped', () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 4, 5, 6].map((r) => jitteredDelay(r, top, DEFAULT_BACKOFF))).toEqual([
      499, 999, 1999, 3999, 7999, 7999, 7999,
    ]);
    expect(jitteredDelay(3, () => 0, DEFAULT_BACKOFF)).toBe(0);
    expect(jitteredDelay(1, () => 0.25, DEFAULT_BACKOFF)).toBe(250);
  });

  test("the server's Retry-After wins over the jitter; past the cap there is no retry", () => {
    const rl = (retryAfterMs?: number) =>
      new LlmError(
        'rate_limited',
        'openai',
        'x',
        retryAfterMs === undefined ? {} : { retryAfterMs },
      );
    expect(retryDelay(0, rl(2000), () => 0.5, DEFAULT_BACKOFF)).toBe(2000);
    expect(retryDelay(0, rl(30_000), () => 0.5, DEFAULT_BACKOFF)).toBe(30_000);
    expect(retryDelay(0, rl(30_001), () => 0.5, DEFAULT_BACKOFF)).toBeUndefined();
    expect(retryDelay(2, rl(), () => 0.5, DEFAULT_BACKOFF)).toBe(1000);
  });
});
