import { describe, expect, test } from 'vitest';
import { HttpErrorSchema } from '../../../../src/brain/api/index.js';
import { WhoamiSchema } from '../../../../src/brain/api/contract.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { API_SCOPES, type ApiScope } from '../../../../src/brain/api/tokens-file.js';
import { auth, CI, harness, OPERATOR } from './harness.js';

/** Every route but /healthz, with a body that would be valid if the caller were known. */
const ROUTES: Array<{ method: 'GET' | 'POST'; url: string; payload?: unknown }> = [
  { method: 'GET', url: '/readyz' },
  { method: 'GET', url: '/v1/whoami' },
  { method: 'GET', url: '/metrics' },
  { method: 'POST', url: '/v1/chat', payload: { message: 'hi' } },
  { method: 'GET', url: '/v1/tools' },
  { method: 'GET', url: '/v1/capabilities' },
  { method: 'POST', url: '/v1/tools/calculator/invoke', payload: { input: { expression: '1' } } },
  { method: 'POST', url: '/v1/confirmations/c-1', payload: { approve: true } },
  { method: 'POST', url: '/v1/policy/explain', payload: { tool: 'calculator', input: {} } },
  { method: 'GET', url: '/v1/policy' },
  { method: 'GET', url: '/v1/audit' },
  { method: 'GET', url: '/v1/audit/counts' },
  { method: 'GET', url: '/v1/no-such-route' },
];

const BAD_HEADERS: Array<[string, Record<string, string>]> = [
  ['no Authorization header', {}],
  ['an unknown token', { authorization: 'Bearer not-a-token-not-a-token-not-a-token' }],
  ['a prefix of a real token', { authorization: `Bearer ${OPERATOR.slice(0, -1)}` }],
  ['a real token plus one character', { authorization: `Bearer ${OPERATOR}x` }],
  ['the Basic scheme', { authorization: `Basic ${OPERATOR}` }],
  ['Bearer with no token', { authorization: 'Bearer ' }],
  ['the token without a scheme', { authorization: OPERATOR }],
  ['two tokens', { authorization: `Bearer ${OPERATOR} ${CI}` }],
];

describe('bearer-token auth', () => {
  const cases = ROUTES.flatMap((r) =>
    BAD_HEADERS.map(([why, headers]) => ({ ...r, why, headers })),
  );

  test.each(cases)(
    '$method $url with $why is 401 and never reaches the BrainService',
    async ({ method, url, payload, headers }) => {
      await using h = await harness();
      const res = await h.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="caesar"/);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = HttpErrorSchema.parse(res.json());
      expect(body.error.code).toBe('unauthorized');
      expect(body.request_id).toBe(res.headers['x-request-id']);
      expect(h.brain.calls).toEqual([]);
    },
  );

  test('a wrong token says invalid_token in WWW-Authenticate; a missing one does not', async () => {
    await using h = await harness();
    const missing = await h.app.inject({ url: '/v1/tools' });
    const wrong = await h.app.inject({
      url: '/v1/tools',
      headers: { authorization: 'Bearer x'.padEnd(40, 'x') },
    });
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="caesar"');
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="caesar", error="invalid_token"');
  });

  test('/healthz needs no token', async () => {
    await using h = await harness();
    const res = await h.app.inject({ url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('the token name becomes the caller actor; the scheme is case-insensitive', async () => {
    await using h = await harness();
    await h.app.inject({
      method: 'POST',
      url: '/v1/tools/calculator/invoke',
      headers: { authorization: `Bearer ${OPERATOR}` },
      payload: { input: 1 },
    });
    await h.app.inject({
      method: 'POST',
      url: '/v1/tools/calculator/invoke',
      headers: { authorization: `bearer ${CI}` },
      payload: { input: 2 },
    });
    const actors = h.brain.callsTo('invoke').map((c) => (c.args[2] as { actor: string }).actor);
    expect(actors).toEqual(['operator', 'ci']);
  });

  test('no token value ever reaches the log, whatever the outcome', async () => {
    await using h = await harness();
    const wrong = 'wrong-token-wrong-token-wrong-token';
    h.brain.fail('listTools', new Error('boom'));
    for (const token of [OPERATOR, CI, wrong]) {
      const headers = { authorization: `Bearer ${token}` };
      await h.app.inject({ url: '/v1/tools', headers });
      await h.app.inject({ method: 'POST', url: '/v1/chat', headers, payload: { role: 'system' } });
      await h.app.inject({ url: '/v1/nope', headers });
    }
    const log = h.logText();
    expect(log).toContain('request failed'); // the 500 was logged...
    expect(log).toContain('"actor":"operator"'); // ...and so were the requests
    for (const token of [OPERATOR, CI, wrong]) expect(log).not.toContain(token);
  });
});

describe('token scopes', () => {
  const SCOPED: Array<{ method: 'GET' | 'POST'; url: string; payload?: unknown; scope: ApiScope }> =
    [
      { method: 'GET', url: '/metrics', scope: 'metrics' },
      { method: 'POST', url: '/v1/chat', payload: { message: 'hi' }, scope: 'chat' },
      { method: 'GET', url: '/v1/tools', scope: 'read' },
      { method: 'GET', url: '/v1/capabilities', scope: 'read' },
      {
        method: 'POST',
        url: '/v1/tools/calculator/invoke',
        payload: { input: { expression: '1' } },
        scope: 'invoke',
      },
      {
        method: 'POST',
        url: '/v1/confirmations/c-1',
        payload: { approve: true },
        scope: 'confirm',
      },
      {
        method: 'POST',
        url: '/v1/policy/explain',
        payload: { tool: 'calculator', input: {} },
        scope: 'read',
      },
      { method: 'GET', url: '/v1/policy', scope: 'read' },
      { method: 'GET', url: '/v1/audit', scope: 'audit' },
      { method: 'GET', url: '/v1/audit/counts', scope: 'audit' },
    ];
  const token = (scope: ApiScope) => `${scope}-scoped-token-0123456789abcdefghijklmnop`;
  const scopedHarness = () =>
    harness({
      tokens: TokenStore.from(
        API_SCOPES.map((scope) => ({
          name: `only-${scope}`,
          token: token(scope),
          scopes: [scope],
        })),
      ),
    });

  test.each(SCOPED)(
    '$method $url needs the $scope scope: 403 without it, before the BrainService hears of it',
    async ({ method, url, payload, scope }) => {
      await using h = await scopedHarness();
      for (const other of API_SCOPES.filter((s) => s !== scope)) {
        const res = await h.app.inject({
          method,
          url,
          headers: auth(token(other)),
          ...(payload ? { payload } : {}),
        });
        expect(res.statusCode).toBe(403);
        const body = HttpErrorSchema.parse(res.json());
        expect(body.error.code).toBe('forbidden');
        expect(body.error.message).toBe(
          `token 'only-${other}' lacks the '${scope}' scope this route needs (it has: ${other})`,
        );
      }
      expect(h.brain.calls).toEqual([]);
      const allowed = await h.app.inject({
        method,
        url,
        headers: auth(token(scope)),
        ...(payload ? { payload } : {}),
      });
      expect([401, 403]).not.toContain(allowed.statusCode);
    },
  );

  test('every route but /healthz, /readyz and /v1/whoami names a scope', () => {
    const routes = new Set(SCOPED.map((r) => `${r.method} ${r.url}`));
    const anyToken = new Set(['/readyz', '/v1/whoami']);
    for (const r of ROUTES.filter((x) => !anyToken.has(x.url) && !x.url.includes('no-such'))) {
      expect(routes.has(`${r.method} ${r.url}`)).toBe(true);
    }
  });

  test('/readyz takes any valid token; an unknown route is 404 for a scoped token', async () => {
    await using h = await scopedHarness();
    const ready = await h.app.inject({ url: '/readyz', headers: auth(token('chat')) });
    expect([200, 503]).toContain(ready.statusCode);
    const missing = await h.app.inject({ url: '/v1/nope', headers: auth(token('chat')) });
    expect(missing.statusCode).toBe(404);
  });

  test('/v1/whoami takes any valid token and answers its name only, never a token', async () => {
    await using h = await scopedHarness();
    for (const scope of API_SCOPES) {
      const res = await h.app.inject({ url: '/v1/whoami', headers: auth(token(scope)) });
      expect(res.statusCode).toBe(200);
      expect(WhoamiSchema.parse(res.json())).toEqual({ name: `only-${scope}` });
      for (const s of API_SCOPES) expect(res.body).not.toContain(token(s));
    }
    expect(h.brain.calls).toEqual([]);
  });

  test('a token without a scopes list may use every route (the operator token)', async () => {
    await using h = await harness();
    for (const r of SCOPED) {
      const res = await h.app.inject({
        method: r.method,
        url: r.url,
        headers: auth(),
        ...(r.payload ? { payload: r.payload } : {}),
      });
      expect([401, 403]).not.toContain(res.statusCode);
    }
  });
});
