import { describe, expect, test } from 'vitest';
import {
  CaesarError,
  HttpBackend,
  HttpFailure,
  probeHttp,
  USER_AGENT,
} from '../../../src/legion/index.js';
import { sendJson, startFakeServer } from '../../helpers/http-server.js';
import { closedPort } from '../../helpers/ports.js';

function backend(
  baseUrl: string,
  extra: Partial<ConstructorParameters<typeof HttpBackend>[0]> = {},
) {
  return new HttpBackend({ name: 'Fake', baseUrl, timeoutMs: 5000, ...extra });
}

async function failureOf(p: Promise<unknown>): Promise<HttpFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpFailure);
  return err as HttpFailure;
}

describe('HttpBackend', () => {
  test('sends the user agent and the backend headers, joins paths under the base URL', async () => {
    await using srv = await startFakeServer((req, res) => sendJson(res, 200, { path: req.url }));
    const b = backend(`${srv.url}/searx`, { headers: { 'x-key': 'k' } });
    const reply = await b.request({ path: 'search', query: { q: 'nats io', format: 'json' } });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ path: '/searx/search?q=nats+io&format=json' });
    expect(srv.requests[0]?.headers['user-agent']).toBe(USER_AGENT);
    expect(srv.requests[0]?.headers['x-key']).toBe('k');
    expect(reply.where).toBe(`${srv.url}/searx/search`);
    await b.close();
  });

  test('a JSON body is sent as application/json', async () => {
    await using srv = await startFakeServer((req, res) => sendJson(res, 200, JSON.parse(req.body)));
    const b = backend(srv.url);
    const reply = await b.request({ method: 'POST', path: '/search', json: { query: 'x' } });
    expect(JSON.parse(reply.text)).toEqual({ query: 'x' });
    expect(srv.requests[0]?.headers['content-type']).toBe('application/json');
    await b.close();
  });

  test('follows a redirect on the same origin, refuses one to another origin', async () => {
    await using other = await startFakeServer((_req, res) => sendJson(res, 200, { stolen: true }));
    await using srv = await startFakeServer((req, res) => {
      if (req.url === '/old') res.writeHead(301, { location: '/new' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: `${other.url}/x` }).end();
      else sendJson(res, 200, { at: req.url });
    });
    const b = backend(srv.url);
    expect(JSON.parse((await b.request({ path: '/old' })).text)).toEqual({ at: '/new' });
    const err = await failureOf(b.request({ path: '/away' }));
    expect(err.kind).toBe('redirect');
    expect(err.message).toContain('another origin');
    expect(other.requests).toHaveLength(0);
    await b.close();
  });

  test('a 301 keeps a PROPFIND a PROPFIND with its body; a 303 turns a POST into a GET', async () => {
    await using srv = await startFakeServer((req, res) => {
      if (req.url === '/.well-known/caldav') res.writeHead(301, { location: '/dav/' }).end();
      else if (req.url === '/form') res.writeHead(303, { location: '/done' }).end();
      else sendJson(res, 200, { method: req.method, body: req.body });
    });
    const b = backend(srv.url);
    const dav = await b.request({ method: 'PROPFIND', path: '/.well-known/caldav', body: '<x/>' });
    expect(JSON.parse(dav.text)).toEqual({ method: 'PROPFIND', body: '<x/>' });
    const form = await b.request({ method: 'POST', path: '/form', json: { a: 1 } });
    expect(JSON.parse(form.text)).toEqual({ method: 'GET', body: '' });
    await b.close();
  });

  test('a body over the limit is refused, not read', async () => {
    await using srv = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(64 * 1024));
    });
    const b = backend(srv.url, { maxResponseBytes: 1024 });
    const err = await failureOf(b.request({}));
    expect(err.kind).toBe('too_large');
    expect(err.code).toBe('backend_error');
    expect(err.retryable).toBe(false);
    await b.close();
  });

  test('no answer within the timeout is a timeout failure naming the backend', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await using srv = await startFakeServer(async (_req, res) => {
      await held;
      res.end('late');
    });
    const b = backend(srv.url, { timeoutMs: 200 });
    const err = await failureOf(b.request({}));
    release();
    expect(err.kind).toBe('timeout');
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/Fake at http:\/\/127\.0\.0\.1:\d+ did not answer within 200 ms/);
    await b.close();
  });

  test("the call's own abort reason wins over the backend's classification", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await using srv = await startFakeServer(async (_req, res) => {
      await held;
      res.end('late');
    });
    const b = backend(srv.url);
    const ac = new AbortController();
    const reason = new CaesarError('timeout', 'deadline passed');
    const pending = b.request({ signal: ac.signal });
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    release();
    await b.close();
  });

  test.each([
    ['connection refused', async () => `http://127.0.0.1:${await closedPort()}`, 'connect'],
    ['an unknown host', () => Promise.resolve('http://no-such-host.invalid'), 'dns'],
  ])('%s is told apart as %s', async (_what, url, kind) => {
    const b = backend(await url());
    const err = await failureOf(b.request({}));
    expect(err.kind).toBe(kind);
    expect(err.retryable).toBe(true);
    await b.close();
  });

  test('a self-signed certificate fails TLS unless verification is off', async () => {
    await using srv = await startFakeServer((_req, res) => sendJson(res, 200, {}), { tls: true });
    const strict = backend(srv.url);
    const err = await failureOf(strict.request({}));
    expect(err.kind).toBe('tls');
    expect(err.message).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
    const lax = backend(srv.url, { verifyTls: false });
    expect((await lax.request({})).status).toBe(200);
    await Promise.all([strict.close(), lax.close()]);
  });

  test('messages never carry the query or the headers', async () => {
    const b = backend(`http://127.0.0.1:${await closedPort()}`, {
      headers: { authorization: 'Bearer s3cret-token' },
    });
    const err = await failureOf(b.request({ query: { api_key: 's3cret-query' } }));
    expect(err.message).not.toContain('s3cret');
    expect(JSON.stringify(err)).not.toContain('s3cret');
    await b.close();
  });

  test('fetch() speaks WHATWG fetch with the same bounds and origin rule', async () => {
    await using srv = await startFakeServer((req, res) => {
      res.writeHead(207, { 'content-type': 'application/xml' });
      res.end(`<ok method="${req.method}"/>`);
    });
    const b = backend(`${srv.url}/dav/`);
    const res = await b.fetch(`${srv.url}/principals/me/`, { method: 'PROPFIND', body: '<x/>' });
    expect(res.status).toBe(207);
    expect(await res.text()).toBe('<ok method="PROPFIND"/>');
    expect(srv.requests[0]?.url).toBe('/principals/me/');
    await expect(b.fetch('http://127.0.0.2:1/')).rejects.toBeInstanceOf(HttpFailure);
    await b.close();
  });
});

describe('probeHttp', () => {
  test('a working backend passes connect, auth and endpoint', async () => {
    await using srv = await startFakeServer((_req, res) => sendJson(res, 200, {}));
    const b = backend(srv.url);
    const probe = await probeHttp(b, { path: '/api/' });
    expect(probe.ok).toBe(true);
    expect(probe.checks.map((c) => [c.name, c.ok])).toEqual([
      ['connect', true],
      ['auth', true],
      ['endpoint', true],
    ]);
    await b.close();
  });

  test.each([
    [401, 'auth', 'rejected the credentials'],
    [403, 'auth', 'rejected the credentials'],
    [404, 'endpoint', 'not found'],
    [500, 'endpoint', 'HTTP 500'],
  ])('HTTP %i fails the %s check', async (status, check, text) => {
    await using srv = await startFakeServer((_req, res) => sendJson(res, status, {}));
    const b = backend(srv.url);
    const probe = await probeHttp(b, { path: '/api/' });
    expect(probe.ok).toBe(false);
    const failed = probe.checks.find((c) => !c.ok);
    expect(failed?.name).toBe(check);
    expect(failed?.detail).toContain(text);
    await b.close();
  });

  test('connection refused, an unknown host and a bad certificate fail their own check', async () => {
    await using tls = await startFakeServer((_req, res) => sendJson(res, 200, {}), { tls: true });
    const cases: [string, string][] = [
      [`http://127.0.0.1:${await closedPort()}`, 'connect'],
      ['http://no-such-host.invalid', 'dns'],
      [tls.url, 'tls'],
    ];
    for (const [url, check] of cases) {
      const b = backend(url);
      const probe = await probeHttp(b, {});
      expect(probe.ok, url).toBe(false);
      expect(probe.checks.find((c) => !c.ok)?.name, url).toBe(check);
      await b.close();
    }
  });
});
