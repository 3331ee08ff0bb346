import { describe, expect, test } from 'vitest';
import { startFakeBrave } from '../../helpers/fake-search.js';
import { everythingIn, failureOf, startTool } from './started.js';

const KEY = 'BSA-test-9f3c2e1d7b';

const RESULTS = [
  {
    title: 'JetStream - <strong>NATS</strong> Docs',
    url: 'https://docs.nats.io/nats-concepts/jetstream',
    description: 'Learn <strong>NATS</strong>&#x27;s streaming &amp; persistence layer.',
    page_age: '2024-02-01T12:00:00',
    age: 'February 1, 2024',
  },
  {
    title: 'nats-io/nats-server',
    url: 'https://github.com/nats-io/nats-server',
    description: 'High-Performance server for NATS.io.',
    age: 'March 3, 2023',
  },
  { title: 'No date', url: 'https://example.com/x', description: 'x', age: '3 days ago' },
];

describe('web_search with Brave Search', () => {
  test('GETs /res/v1/web/search with the token header and reads web.results', async () => {
    await using brave = await startFakeBrave({ key: KEY, results: RESULTS });
    await using ws = await startTool({ brave_api_key: KEY, brave_url: brave.url });
    const out = await ws.search({ query: 'nats jetstream', max_results: 3, language: 'ja' });

    const req = brave.requests[0]!;
    const sent = new URL(req.url, brave.url);
    expect(req.method).toBe('GET');
    expect(sent.pathname).toBe('/res/v1/web/search');
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      q: 'nats jetstream',
      count: '3',
      search_lang: 'jp',
    });
    expect(req.headers['x-subscription-token']).toBe(KEY);
    expect(req.headers.accept).toBe('application/json');
    expect(out).toEqual({
      query: 'nats jetstream',
      backend: 'brave',
      results: [
        {
          title: 'JetStream - NATS Docs',
          url: 'https://docs.nats.io/nats-concepts/jetstream',
          domain: 'docs.nats.io',
          snippet: "Learn NATS's streaming & persistence layer.",
          published: '2024-02-01T12:00:00.000Z',
        },
        {
          title: 'nats-io/nats-server',
          url: 'https://github.com/nats-io/nats-server',
          domain: 'github.com',
          snippet: 'High-Performance server for NATS.io.',
          published: '2023-03-03T00:00:00.000Z',
        },
        { title: 'No date', url: 'https://example.com/x', domain: 'example.com', snippet: 'x' },
      ],
    });
  });

  test('asks for at most 20 results (Brave caps count at 20)', async () => {
    await using brave = await startFakeBrave({ key: KEY, results: RESULTS });
    await using ws = await startTool({ brave_api_key: KEY, brave_url: brave.url });
    await ws.search({ query: 'nats', max_results: 25 });
    expect(new URL(brave.requests[0]!.url, brave.url).searchParams.get('count')).toBe('20');
  });

  test('an answer without `web` is an empty result', async () => {
    await using brave = await startFakeBrave({ key: KEY, results: [] });
    await using ws = await startTool({ brave_api_key: KEY, brave_url: brave.url });
    expect(await ws.search({ query: 'qwxzvbnmq' })).toEqual({
      query: 'qwxzvbnmq',
      backend: 'brave',
      results: [],
    });
  });

  test.each([401, 422] as const)(
    'a rejected key (HTTP %i) is not_configured naming the key to set, never the key',
    async (status) => {
      await using brave = await startFakeBrave({ key: 'the-right-key', invalidKeyStatus: status });
      await using ws = await startTool({ brave_api_key: KEY, brave_url: brave.url });
      const err = await failureOf(ws.search({ query: 'nats' }));
      expect(err).toMatchObject({ code: 'not_configured', retryable: false });
      expect(err.message).toContain('Brave Search rejected the API key');
      expect(err.message).toContain('CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY');
      expect(everythingIn(err)).not.toContain(KEY);
    },
  );

  test('429 is a retryable backend_error about the rate limit or quota, with when to retry', async () => {
    await using brave = await startFakeBrave({
      key: KEY,
      rateLimited: { remaining: '1, 0', reset: '1, 1209600' },
    });
    await using ws = await startTool({ brave_api_key: KEY, brave_url: brave.url });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: true });
    expect(err.message).toContain('HTTP 429 RATE_LIMITED');
    expect(err.message).toContain('rate limit or monthly quota');
    expect(err.message).toContain('resets in 14 day(s)');

    brave.set({ rateLimited: { remaining: '0, 1500', reset: '1, 1209600' } });
    expect((await failureOf(ws.search({ query: 'nats' }))).message).toContain('retry in 1 s');
  });

  test('5xx is a retryable backend_error', async () => {
    await using brave = await startFakeBrave({ key: KEY, failWith: 503 });
    await using ws = await startTool({ brave_api_key: KEY, brave_url: brave.url });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: true });
    expect(err.message).toContain('HTTP 503');
  });

  test('a query over 400 characters or 50 words is not sent (it would cost a 422)', async () => {
    await using brave = await startFakeBrave({ key: KEY, results: RESULTS });
    await using ws = await startTool({ brave_api_key: KEY, brave_url: brave.url });
    for (const query of ['a'.repeat(401), Array.from({ length: 51 }, () => 'w').join(' ')]) {
      const err = await failureOf(ws.search({ query }));
      expect(err).toMatchObject({ code: 'backend_error', retryable: false });
      expect(err.message).toContain('was not sent');
    }
    expect(brave.requests).toHaveLength(0);
  });
});
