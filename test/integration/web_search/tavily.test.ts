import { describe, expect, test } from 'vitest';
import { startFakeTavily } from '../../helpers/fake-search.js';
import { everythingIn, failureOf, startTool } from './started.js';

const KEY = 'tvly-dev-test-4b7e91c2aa';

const RESULTS = [
  {
    title: 'JetStream | NATS Docs',
    url: 'https://docs.nats.io/nats-concepts/jetstream',
    content: 'NATS has a built-in persistence engine called JetStream.',
    published_date: 'Tue, 05 Mar 2024 08:30:00 GMT',
  },
  {
    title: 'Synadia',
    url: 'https://www.synadia.com/',
    content: 'Connective technology.',
  },
];

describe('web_search with Tavily', () => {
  test('POSTs /search with a bearer key and a JSON body, and reads results', async () => {
    await using tavily = await startFakeTavily({ key: KEY, results: RESULTS });
    await using ws = await startTool({ tavily_api_key: KEY, tavily_url: tavily.url });
    const out = await ws.search({ query: 'nats jetstream', max_results: 2, language: 'en' });

    const req = tavily.requests[0]!;
    expect(req.method).toBe('POST');
    expect(new URL(req.url, tavily.url).pathname).toBe('/search');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({
      query: 'nats jetstream',
      max_results: 2,
      search_depth: 'basic',
      topic: 'general',
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    });
    expect(req.body).not.toContain(KEY); // the key travels in the header only
    expect(out).toEqual({
      query: 'nats jetstream',
      backend: 'tavily',
      results: [
        {
          title: 'JetStream | NATS Docs',
          url: 'https://docs.nats.io/nats-concepts/jetstream',
          domain: 'docs.nats.io',
          snippet: 'NATS has a built-in persistence engine called JetStream.',
          published: '2024-03-05T08:30:00.000Z',
        },
        {
          title: 'Synadia',
          url: 'https://www.synadia.com/',
          domain: 'synadia.com',
          snippet: 'Connective technology.',
        },
      ],
    });
  });

  test('asks for at most 20 results (Tavily caps max_results at 20)', async () => {
    await using tavily = await startFakeTavily({ key: KEY, results: RESULTS });
    await using ws = await startTool({ tavily_api_key: KEY, tavily_url: tavily.url });
    await ws.search({ query: 'nats', max_results: 25 });
    expect(JSON.parse(tavily.requests[0]!.body)).toMatchObject({ max_results: 20 });
  });

  test('a rejected key (401) is not_configured naming the key to set, never the key', async () => {
    await using tavily = await startFakeTavily({ key: 'tvly-the-right-one' });
    await using ws = await startTool({ tavily_api_key: KEY, tavily_url: tavily.url });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err).toMatchObject({ code: 'not_configured', retryable: false });
    expect(err.message).toContain('Tavily rejected the API key (HTTP 401)');
    expect(err.message).toContain('CAESAR_TOOLS__WEB_SEARCH__TAVILY_API_KEY');
    expect(everythingIn(err)).not.toContain(KEY);
  });

  test.each([
    [429, 'rate limit'],
    [432, "plan's usage limit"],
    [433, 'pay-as-you-go limit'],
  ])('HTTP %i is a retryable backend_error about the %s', async (status, text) => {
    await using tavily = await startFakeTavily({ key: KEY, failWith: status });
    await using ws = await startTool({ tavily_api_key: KEY, tavily_url: tavily.url });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: true });
    expect(err.message).toContain(`HTTP ${status}`);
    expect(err.message).toContain(text);
  });

  test('an upstream error detail is quoted with the key removed', async () => {
    await using tavily = await startFakeTavily({
      key: KEY,
      failWith: 400,
      failDetail: `Invalid request for key ${KEY}: unsupported topic`,
    });
    await using ws = await startTool({ tavily_api_key: KEY, tavily_url: tavily.url });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain('unsupported topic');
    expect(err.message).toContain('[redacted]');
    expect(everythingIn(err)).not.toContain(KEY);
  });

  test('a query over 400 characters is not sent', async () => {
    await using tavily = await startFakeTavily({ key: KEY, results: RESULTS });
    await using ws = await startTool({ tavily_api_key: KEY, tavily_url: tavily.url });
    const err = await failureOf(ws.search({ query: 'q'.repeat(450) }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain('at most 400 characters');
    expect(tavily.requests).toHaveLength(0);
  });
});
