import { describe, expect, test } from 'vitest';
import type { PreflightResult } from '../../../src/legion/index.js';
import { startFakeBrave, startFakeSearxng, startFakeTavily } from '../../helpers/fake-search.js';
import { startFakeServer } from '../../helpers/http-server.js';
import { closedPort } from '../../helpers/ports.js';
import { startTool } from './started.js';

const BRAVE_KEY = 'BSA-preflight-0a9b8c';
const TAVILY_KEY = 'tvly-preflight-d4e5f6';

const names = (r: PreflightResult) =>
  (r.checks ?? []).map((c) => `${c.name}:${c.ok ? 'ok' : 'FAIL'}`);
const check = (r: PreflightResult, name: string) => r.checks?.find((c) => c.name === name);

describe('web_search preflight', () => {
  test('every configured backend ready: ok, with per-backend check names and no warnings', async () => {
    await using searx = await startFakeSearxng();
    await using brave = await startFakeBrave({ key: BRAVE_KEY });
    await using tavily = await startFakeTavily({
      key: TAVILY_KEY,
      usage: { used: 40, limit: 1000 },
    });
    await using ws = await startTool({
      searxng_url: searx.url,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
      tavily_api_key: TAVILY_KEY,
      tavily_url: tavily.url,
    });
    const r = await ws.preflight();
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([]);
    expect(names(r)).toEqual([
      'searxng.connect:ok',
      'searxng.auth:ok',
      'searxng.endpoint:ok',
      'searxng.json_format:ok',
      'brave.connect:ok',
      'brave.auth:ok',
      'brave.endpoint:ok',
      'tavily.connect:ok',
      'tavily.auth:ok',
      'tavily.endpoint:ok',
      'tavily.quota:ok',
    ]);
    expect(check(r, 'tavily.quota')?.detail).toBe('40 of 1000 credits used this billing cycle');
  });

  test('the probes are cheap: SearXNG without q, Brave one result, Tavily /usage', async () => {
    await using searx = await startFakeSearxng();
    await using brave = await startFakeBrave({ key: BRAVE_KEY });
    await using tavily = await startFakeTavily({ key: TAVILY_KEY });
    await using ws = await startTool({
      searxng_url: searx.url,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
      tavily_api_key: TAVILY_KEY,
      tavily_url: tavily.url,
    });
    await ws.preflight();
    const sx = new URL(searx.requests[0]!.url, searx.url);
    expect([sx.pathname, sx.searchParams.has('q'), sx.searchParams.get('format')]).toEqual([
      '/search',
      false,
      'json',
    ]);
    const br = new URL(brave.requests[0]!.url, brave.url);
    expect([br.pathname, br.searchParams.get('count')]).toEqual(['/res/v1/web/search', '1']);
    expect(brave.requests[0]!.headers['x-subscription-token']).toBe(BRAVE_KEY);
    expect([tavily.requests[0]!.method, tavily.requests[0]!.url]).toEqual(['GET', '/usage']);
    expect(tavily.requests[0]!.headers.authorization).toBe(`Bearer ${TAVILY_KEY}`);
  });

  test('unconfigured: the `configured` check names the key to set', async () => {
    await using ws = await startTool({});
    const r = await ws.preflight();
    expect(r.ok).toBe(false);
    expect(r.checks).toEqual([
      {
        name: 'configured',
        ok: false,
        detail: expect.stringContaining(
          'set CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL (tools.web_search.searxng_url)',
        ) as string,
      },
    ]);
    expect(r.checks?.[0]?.detail).toContain('CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY');
  });

  test('an unreachable backend fails its connect check; another ready one keeps ok, with a warning', async () => {
    const port = await closedPort();
    await using brave = await startFakeBrave({ key: BRAVE_KEY });
    await using ws = await startTool({
      searxng_url: `http://127.0.0.1:${port}`,
      brave_api_key: BRAVE_KEY,
      brave_url: brave.url,
    });
    const r = await ws.preflight();
    expect(r.ok).toBe(true);
    expect(names(r).slice(0, 2)).toEqual(['searxng.dns:ok', 'searxng.connect:FAIL']);
    expect(check(r, 'searxng.connect')?.detail).toContain('ECONNREFUSED');
    expect(r.warnings).toEqual([
      expect.stringMatching(
        /^searxng is not ready \(connect: .*ECONNREFUSED.*\); calls fall back to brave$/,
      ),
    ]);
  });

  test('the only backend unreachable: not ok', async () => {
    await using ws = await startTool({ searxng_url: `http://127.0.0.1:${await closedPort()}` });
    const r = await ws.preflight();
    expect(r.ok).toBe(false);
    expect(r.warnings?.[0]).toContain('no backend is ready');
  });

  test.each([401, 422] as const)(
    'a Brave key rejected with HTTP %i fails brave.auth naming the key',
    async (status) => {
      await using brave = await startFakeBrave({ key: 'other', invalidKeyStatus: status });
      await using ws = await startTool({ brave_api_key: BRAVE_KEY, brave_url: brave.url });
      const r = await ws.preflight();
      expect(r.ok).toBe(false);
      expect(names(r)).toEqual(['brave.connect:ok', 'brave.auth:FAIL']);
      expect(check(r, 'brave.auth')?.detail).toContain('CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY');
      expect(JSON.stringify(r)).not.toContain(BRAVE_KEY);
    },
  );

  test('a Tavily key rejected fails tavily.auth; an exhausted one fails tavily.quota', async () => {
    await using tavily = await startFakeTavily({ key: 'other' });
    await using ws = await startTool({ tavily_api_key: TAVILY_KEY, tavily_url: tavily.url });
    let r = await ws.preflight();
    expect(names(r)).toEqual(['tavily.connect:ok', 'tavily.auth:FAIL']);
    expect(check(r, 'tavily.auth')?.detail).toContain('CAESAR_TOOLS__WEB_SEARCH__TAVILY_API_KEY');

    tavily.set({ key: TAVILY_KEY, usage: { used: 1000, limit: 1000 } });
    r = await ws.preflight();
    expect(r.ok).toBe(false);
    expect(check(r, 'tavily.quota')).toMatchObject({ ok: false });
    expect(check(r, 'tavily.quota')?.detail).toContain('1000 of 1000 credits used');

    tavily.set({ usage: { used: 1000, limit: null } }); // no key limit, but the plan is used up
    r = await ws.preflight();
    expect(check(r, 'tavily.quota')).toMatchObject({ ok: false });
    expect(check(r, 'tavily.quota')?.detail).toContain(
      "the account plan's 1000 credits are used up",
    );
    expect(JSON.stringify(r)).not.toContain(TAVILY_KEY);
  });

  test('a certificate the worker cannot verify fails the tls check', async () => {
    await using searx = await startFakeSearxng({}, { tls: true });
    await using ws = await startTool({ searxng_url: searx.url });
    const r = await ws.preflight();
    expect(r.ok).toBe(false);
    expect(names(r)).toEqual(['searxng.dns:ok', 'searxng.connect:ok', 'searxng.tls:FAIL']);
    expect(check(r, 'searxng.tls')?.detail).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  test('SearXNG with JSON output off fails searxng.json_format, saying how to enable it', async () => {
    await using searx = await startFakeSearxng({ formats: ['html'] });
    await using ws = await startTool({ searxng_url: searx.url });
    const r = await ws.preflight();
    expect(r.ok).toBe(false);
    expect(names(r)).toEqual(['searxng.connect:ok', 'searxng.json_format:FAIL']);
    expect(check(r, 'searxng.json_format')?.detail).toContain('add json to search.formats');
  });

  test('a URL that is not a SearXNG (a web page answers) fails searxng.json_format', async () => {
    await using page = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>router login</html>');
    });
    await using ws = await startTool({ searxng_url: page.url });
    const r = await ws.preflight();
    expect(r.ok).toBe(false);
    expect(check(r, 'searxng.json_format')?.detail).toContain('points at a SearXNG instance');
  });

  test('a wrong SearXNG path fails searxng.endpoint (not found)', async () => {
    await using searx = await startFakeSearxng();
    await using ws = await startTool({ searxng_url: `${searx.url}/wrong/` });
    const r = await ws.preflight();
    expect(names(r)).toEqual(['searxng.connect:ok', 'searxng.auth:ok', 'searxng.endpoint:FAIL']);
    expect(check(r, 'searxng.endpoint')?.detail).toContain('not found');
  });

  test('a passing Brave probe (billed) is reused until the cache expires; a failing one is not', async () => {
    let now = 1_000_000;
    await using brave = await startFakeBrave({ key: BRAVE_KEY });
    await using ws = await startTool(
      { brave_api_key: BRAVE_KEY, brave_url: brave.url },
      { preflightCacheMs: 60_000, now: () => now },
    );
    expect((await ws.preflight()).ok).toBe(true);
    now += 30_000;
    const cached = await ws.preflight();
    expect(cached.ok).toBe(true);
    expect(check(cached, 'brave.cached')?.detail).toContain('from a probe 30 s ago');
    expect(brave.requests).toHaveLength(1);

    now += 31_000; // past the minute: probed again
    expect(check(await ws.preflight(), 'brave.cached')).toBeUndefined();
    expect(brave.requests).toHaveLength(2);

    brave.set({ failWith: 503 });
    now += 61_000;
    expect((await ws.preflight()).ok).toBe(false);
    expect((await ws.preflight()).ok).toBe(false); // a failure is probed again every time
    expect(brave.requests).toHaveLength(4);
  });

  test('SearXNG and Tavily probes cost nothing, so they are never cached', async () => {
    await using searx = await startFakeSearxng();
    await using tavily = await startFakeTavily({ key: TAVILY_KEY });
    await using ws = await startTool({
      searxng_url: searx.url,
      tavily_api_key: TAVILY_KEY,
      tavily_url: tavily.url,
    });
    await ws.preflight();
    await ws.preflight();
    expect(searx.requests).toHaveLength(2);
    expect(tavily.requests).toHaveLength(2);
  });
});
