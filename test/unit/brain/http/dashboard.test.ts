import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { auth, harness, OPERATOR } from './harness.js';

/** The dashboard's files (`/`, `/dashboard/<file>`) and `GET /v1/confirmations`. */

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
  "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

describe('dashboard files', () => {
  test.each([
    ['/', 'text/html; charset=utf-8'],
    ['/dashboard/app.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/app.css', 'text/css; charset=utf-8'],
    ['/dashboard/icon.svg', 'image/svg+xml'],
  ])('%s is served without a token, as %s, under the strict CSP', async (url, type) => {
    await using h = await harness();
    const res = await h.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['content-security-policy']).toBe(CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(h.brain.calls).toEqual([]);
  });

  test('the page has no inline script, style or event handler, and names only files served here', async () => {
    await using h = await harness();
    const html = (await h.app.inject({ method: 'GET', url: '/' })).body;
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/i);
    const refs = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^\/dashboard\//);
      expect((await h.app.inject({ method: 'GET', url: ref })).statusCode).toBe(200);
    }
  });

  test('any other file is 404, and API answers carry nosniff and no-referrer too', async () => {
    await using h = await harness();
    for (const url of ['/dashboard/index.html', '/dashboard/..%2Fpackage.json', '/dashboard/x']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    const api = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    expect(api.headers['referrer-policy']).toBe('no-referrer');
  });

  test('a missing file is 404 naming where it was looked for and how to get it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'caesar-dash-'));
    try {
      writeFileSync(join(dir, 'index.html'), '<!doctype html>');
      await using h = await harness({ dashboardDir: dir });
      expect((await h.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
      const res = await h.app.inject({ method: 'GET', url: '/dashboard/app.js' });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.message).toContain(join(dir, 'app.js'));
      expect(res.json().error.message).toContain('npm run build');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GET /v1/confirmations', () => {
  const pending = {
    id: 'c-1',
    tool: 'calculator',
    summary: 'calculator with {"expression":"1+1"}',
    requested_by: 'operator',
    decision_id: 'd-1',
    rule: 'calc-confirm',
    reason: 'needs a human',
    created_at: '2026-12-02T12:00:00.000Z',
    expires_at: '2026-12-02T12:02:00.000Z',
  };

  test('lists the calls waiting for a human', async () => {
    await using h = await harness();
    h.brain.pending = [pending];
    const res = await h.app.inject({ method: 'GET', url: '/v1/confirmations', headers: auth() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([pending]);
  });

  test('needs the confirm scope', async () => {
    const reader = 'rd-0123456789abcdefghijklmnopqrstuvwxyzABCDE';
    await using h = await harness({
      tokens: TokenStore.from([
        { name: 'operator', token: OPERATOR },
        { name: 'reader', token: reader, scopes: ['read', 'audit'] },
      ]),
    });
    const res = await h.app.inject({
      method: 'GET',
      url: '/v1/confirmations',
      headers: auth(reader),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toContain("lacks the 'confirm' scope");
    expect(h.brain.callsTo('pendingConfirmations')).toEqual([]);
  });
});
