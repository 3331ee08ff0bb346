import { describe, expect, test } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../src/legion/index.js';
import { startFakeSearxng } from '../../helpers/fake-search.js';
import { failureOf, startTool } from './started.js';

const RESULTS = [
  {
    url: 'https://docs.nats.io/nats-concepts/jetstream',
    title: 'JetStream | <b>NATS</b> Docs',
    content:
      'NATS has a built-in persistence engine called <span class="hl">JetStream</span> &amp; more.',
    publishedDate: '2024-03-05T08:30:00',
  },
  {
    url: 'https://www.synadia.com/blog/jetstream',
    title: 'JetStream at Synadia',
    content: 'Blog.',
  },
];

describe('web_search with SearXNG', () => {
  test('searches /search with format=json and answers normalised results naming searxng', async () => {
    await using searx = await startFakeSearxng({ results: RESULTS });
    await using ws = await startTool({ searxng_url: searx.url });
    const out = await ws.search({ query: '  nats jetstream ', language: 'de-CH' });

    expect(searx.requests).toHaveLength(1);
    const sent = new URL(searx.requests[0]!.url, searx.url);
    expect(sent.pathname).toBe('/search');
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      q: 'nats jetstream',
      format: 'json',
      pageno: '1',
      language: 'de-CH',
    });
    expect(searx.requests[0]!.method).toBe('GET');
    expect(searx.requests[0]!.headers.accept).toBe('application/json');
    expect(out).toEqual({
      query: 'nats jetstream',
      backend: 'searxng',
      results: [
        {
          title: 'JetStream | NATS Docs',
          url: 'https://docs.nats.io/nats-concepts/jetstream',
          domain: 'docs.nats.io',
          snippet: 'NATS has a built-in persistence engine called JetStream & more.',
          published: '2024-03-05T08:30:00.000Z',
        },
        {
          title: 'JetStream at Synadia',
          url: 'https://www.synadia.com/blog/jetstream',
          domain: 'synadia.com',
          snippet: 'Blog.',
        },
      ],
    });
  });

  test('max_results defaults to result_limit and is cut to max_result_limit, not refused', async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      url: `https://example.org/page/${i}`,
      title: `Page ${i}`,
    }));
    await using searx = await startFakeSearxng({ results: many });
    await using ws = await startTool({ searxng_url: searx.url, max_result_limit: '12' });
    expect((await ws.search({ query: 'pages' })).results).toHaveLength(5);
    expect((await ws.search({ query: 'pages', max_results: 3 })).results).toHaveLength(3);
    expect((await ws.search({ query: 'pages', max_results: 100 })).results).toHaveLength(12);
  });

  test('a search that found nothing is an empty result, not an error', async () => {
    await using searx = await startFakeSearxng({ results: [] });
    await using ws = await startTool({ searxng_url: searx.url });
    expect(await ws.search({ query: 'qwxzvbnmq' })).toEqual({
      query: 'qwxzvbnmq',
      backend: 'searxng',
      results: [],
    });
  });

  test('no results because the engines failed is upstream_empty naming each engine and why', async () => {
    await using searx = await startFakeSearxng({
      results: [],
      unresponsive: [
        ['google', 'timeout'],
        ['brave', 'Suspended: too many requests'],
      ],
    });
    await using ws = await startTool({ searxng_url: searx.url });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err.code).toBe('upstream_empty');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('google (timeout)');
    expect(err.message).toContain('brave (Suspended: too many requests)');
    expect(err.message).toContain(searx.url);
  });

  test('results with some engines down are kept, and the engines are named in notes', async () => {
    await using searx = await startFakeSearxng({
      results: RESULTS,
      unresponsive: [['wikipedia', 'HTTP error']],
    });
    await using ws = await startTool({ searxng_url: searx.url });
    const out = await ws.search({ query: 'nats' });
    expect(out.results).toHaveLength(2);
    expect(out.notes).toEqual(['SearXNG: 1 engine(s) did not answer: wikipedia (HTTP error)']);
  });

  test('403 on format=json says JSON output is disabled and how to enable it', async () => {
    await using searx = await startFakeSearxng({ formats: ['html'] });
    await using ws = await startTool({ searxng_url: searx.url });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err.code).toBe('backend_error');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('HTTP 403');
    expect(err.message).toContain('add json to search.formats in its settings.yml');
  });

  test.each([
    [500, true, 'retry later'],
    [503, true, 'retry later'],
    [429, true, 'botdetection.ip_lists.pass_ip'],
    [400, false, 'HTTP 400'],
  ])('HTTP %i is a backend_error, retryable %s', async (status, retryable, text) => {
    await using searx = await startFakeSearxng({ failWith: status });
    await using ws = await startTool({ searxng_url: searx.url });
    const err = await failureOf(ws.search({ query: 'x' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable });
    expect(err.message).toContain(text);
  });

  test('a wrong URL (404) names the key to fix', async () => {
    await using searx = await startFakeSearxng();
    await using ws = await startTool({ searxng_url: `${searx.url}/nope` });
    const err = await failureOf(ws.search({ query: 'x' }));
    expect(new URL(searx.requests[0]!.url, searx.url).pathname).toBe('/nope/search');
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain('not found');
    expect(err.message).toContain('CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL');
  });

  test('a body that is not the expected JSON is a backend_error', async () => {
    await using searx = await startFakeSearxng({ rawBody: '<html>login</html>' });
    await using ws = await startTool({ searxng_url: searx.url });
    const err = await failureOf(ws.search({ query: 'x' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain('not JSON');

    searx.set({ rawBody: JSON.stringify({ answers: [] }) });
    const err2 = await failureOf(ws.search({ query: 'x' }));
    expect(err2.code).toBe('backend_error');
    expect(err2.message).toContain('not a search answer');
  });

  test('an answer over the size cap is refused, not read', async () => {
    const huge = JSON.stringify({
      results: [
        { url: 'https://example.org', title: 'x', content: 'y'.repeat(DEFAULT_MAX_RESPONSE_BYTES) },
      ],
    });
    await using searx = await startFakeSearxng({ rawBody: huge });
    await using ws = await startTool({ searxng_url: searx.url });
    const err = await failureOf(ws.search({ query: 'x' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain(`more than ${DEFAULT_MAX_RESPONSE_BYTES} bytes`);
  });
});
