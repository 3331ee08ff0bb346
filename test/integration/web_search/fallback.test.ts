import { describe, expect, test } from 'vitest';
import { CaesarError } from '../../../src/legion/index.js';
import {
  gate,
  startFakeBrave,
  startFakeSearxng,
  startFakeTavily,
} from '../../helpers/fake-search.js';
import { closedPort } from '../../helpers/ports.js';
import { everythingIn, failureOf, startTool } from './started.js';

const BRAVE_KEY = 'BSA-fallback-5e8d1a';
const TAVILY_KEY = 'tvly-fallback-77c0b3';

const page = (n: number) => ({ title: `Result ${n}`, url: `https://example.org/${n}` });

describe('web_search fallback', () => {
  test('SearXNG with every engine down hands over to Brave; the answer names brave and why', async () => {
    await using searx = await startFakeSearxng({ unresponsive: [['google', 'CAPTCHA']] });
    await using brave = await startFakeBrave({ key: BRAVE_KEY, results: [page(1)] });
    await using ws = await startTool({
      searxng_url: searx.url,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
    });
    const out = await ws.search({ query: 'nats' });
    expect(out.backend).toBe('brave');
    expect(out.results.map((r) => r.url)).toEqual(['https://example.org/1']);
    expect(out.notes).toHaveLength(1);
    expect(out.notes![0]).toMatch(/^searxng failed \(upstream_empty\): .*google \(CAPTCHA\)/);
    expect(searx.requests).toHaveLength(1);
    expect(brave.requests).toHaveLength(1);
  });

  test('a working first backend answers alone: the next is never asked', async () => {
    await using searx = await startFakeSearxng({ results: [page(1)] });
    await using brave = await startFakeBrave({ key: BRAVE_KEY, results: [page(2)] });
    await using ws = await startTool({
      searxng_url: searx.url,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
    });
    expect((await ws.search({ query: 'nats' })).backend).toBe('searxng');
    expect(brave.requests).toHaveLength(0);
  });

  test('`backends` sets the order, and a configured backend left out of it is never used', async () => {
    await using searx = await startFakeSearxng({ results: [page(1)] });
    await using brave = await startFakeBrave({ key: BRAVE_KEY, failWith: 502 });
    await using tavily = await startFakeTavily({ key: TAVILY_KEY, results: [page(3)] });
    await using ws = await startTool({
      searxng_url: searx.url,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
      tavily_api_key: TAVILY_KEY,
      tavily_url: tavily.url,
      backends: 'brave, tavily',
    });
    const out = await ws.search({ query: 'nats' });
    expect(out.backend).toBe('tavily');
    expect(out.notes?.[0]).toMatch(/^brave failed \(backend_error\): .*HTTP 502/);
    expect(brave.requests).toHaveLength(1);
    expect(searx.requests).toHaveLength(0);
  });

  test('all backends down: one error listing each reason, coded by the first retryable one', async () => {
    const port = await closedPort();
    await using brave = await startFakeBrave({ key: 'not-our-key' });
    await using tavily = await startFakeTavily({ key: TAVILY_KEY, failWith: 432 });
    await using ws = await startTool({
      searxng_url: `http://127.0.0.1:${port}`,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
      tavily_api_key: TAVILY_KEY,
      tavily_url: tavily.url,
      backends: ['brave', 'searxng', 'tavily'],
    });
    const err = await failureOf(ws.search({ query: 'nats' }));
    // brave: key rejected (not retryable); searxng: connection refused (retryable) wins
    expect(err).toMatchObject({ code: 'backend_error', retryable: true });
    expect(err.message).toMatch(
      /^every search backend failed\. brave: .* \| searxng: .* \| tavily: .*/,
    );
    expect(err.message).toContain('Brave Search rejected the API key');
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).toContain('HTTP 432');
    expect(err.details).toEqual({
      backends: [
        expect.objectContaining({ backend: 'brave', code: 'not_configured', retryable: false }),
        expect.objectContaining({ backend: 'searxng', code: 'backend_error', retryable: true }),
        expect.objectContaining({ backend: 'tavily', code: 'backend_error', retryable: true }),
      ],
    });
    expect(everythingIn(err)).not.toContain(BRAVE_KEY);
    expect(everythingIn(err)).not.toContain(TAVILY_KEY);
  });

  test('when no failure is retryable, the first one sets the code', async () => {
    await using searx = await startFakeSearxng({ formats: ['html'] });
    await using brave = await startFakeBrave({ key: 'not-our-key', invalidKeyStatus: 401 });
    await using ws = await startTool({
      searxng_url: searx.url,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
    });
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain('JSON output is disabled');
    expect(err.message).toContain('HTTP 401');
  });

  test('a backend that holds its answer past timeout_seconds times out and the next answers', async () => {
    const held = gate();
    await using searx = await startFakeSearxng({ results: [page(1)], hold: held.wait });
    await using brave = await startFakeBrave({ key: BRAVE_KEY, results: [page(2)] });
    try {
      await using ws = await startTool({
        searxng_url: searx.url,
        brave_api_key: BRAVE_KEY,
        brave_url: brave.url,
        timeout_seconds: '0.3',
      });
      const out = await ws.search({ query: 'nats' });
      expect(out.backend).toBe('brave');
      expect(out.notes?.[0]).toMatch(
        /^searxng failed \(timeout\): timed out: SearXNG at .* did not answer within 300 ms/,
      );
    } finally {
      held.open();
    }
  });

  test('a lone backend that times out answers timeout', async () => {
    const held = gate();
    await using searx = await startFakeSearxng({ results: [page(1)], hold: held.wait });
    try {
      await using ws = await startTool({ searxng_url: searx.url, timeout_seconds: 0.2 });
      const err = await failureOf(ws.search({ query: 'nats' }));
      expect(err).toMatchObject({ code: 'timeout', retryable: true });
      expect(err.message).toContain('did not answer within 200 ms');
    } finally {
      held.open();
    }
  });

  test("the call's own end (deadline, shutdown) stops the round: no next backend", async () => {
    const held = gate();
    await using searx = await startFakeSearxng({ results: [page(1)], hold: held.wait });
    await using brave = await startFakeBrave({ key: BRAVE_KEY, results: [page(2)] });
    try {
      await using ws = await startTool({
        searxng_url: searx.url,
        brave_api_key: BRAVE_KEY,
        brave_url: brave.url,
      });
      const call = new AbortController();
      const pending = ws.search({ query: 'nats' }, call.signal);
      const reason = new CaesarError('timeout', 'deadline passed');
      while (searx.requests.length === 0) await new Promise((r) => setImmediate(r));
      call.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect(brave.requests).toHaveLength(0);
    } finally {
      held.open();
    }
  });

  test('no backend configured: every call is not_configured naming the key to set', async () => {
    await using ws = await startTool({});
    const err = await failureOf(ws.search({ query: 'nats' }));
    expect(err).toMatchObject({ code: 'not_configured', retryable: false });
    expect(err.message).toContain(
      'set CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL (tools.web_search.searxng_url)',
    );
    expect(err.message).toContain('CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY');
    expect(err.message).toContain('CAESAR_TOOLS__WEB_SEARCH__TAVILY_API_KEY');
  });

  test('no key ever reaches an error, a note or a result, whatever failed', async () => {
    const port = await closedPort();
    await using tls = await startFakeSearxng({}, { tls: true });
    await using brave = await startFakeBrave({ key: 'other' });
    await using tavily = await startFakeTavily({
      key: TAVILY_KEY,
      failWith: 400,
      failDetail: `echo ${TAVILY_KEY} ${BRAVE_KEY}`,
    });
    const cases: Record<string, unknown>[] = [
      { searxng_url: `http://127.0.0.1:${port}` },
      { searxng_url: tls.url },
      { brave_url: brave.url },
      { tavily_url: tavily.url, backends: 'tavily' },
      { brave_url: `http://127.0.0.1:${port}`, tavily_url: tavily.url },
    ];
    for (const extra of cases) {
      await using ws = await startTool({
        brave_api_key: BRAVE_KEY,
        tavily_api_key: TAVILY_KEY,
        brave_url: `http://127.0.0.1:${port}`,
        tavily_url: `http://127.0.0.1:${port}`,
        ...extra,
      });
      const seen = everythingIn(await failureOf(ws.search({ query: 'nats' })));
      expect(seen, JSON.stringify(extra)).not.toContain(BRAVE_KEY);
      expect(seen, JSON.stringify(extra)).not.toContain(TAVILY_KEY);
    }
  });
});
