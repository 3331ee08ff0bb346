import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import {
  HttpErrorSchema,
  ToolCallReportSchema,
  ToolViewSchema,
} from '../../../../src/brain/api/index.js';
import {
  BrainMetrics,
  buildHttpServer,
  startHttpServer,
} from '../../../../src/brain/http/index.js';
import { HttpBindError } from '../../../../src/brain/http/errors.js';
import { isLoopbackHost } from '../../../../src/brain/http/loopback.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { silentLogger } from '../../../../src/log/index.js';
import { RecordingBrain } from '../../../unit/brain/http/fake-brain.js';

const TOKEN = 'listen-test-token-0123456789abcdef';

async function build(tokens: TokenStore) {
  const brain = new RecordingBrain();
  const app = await buildHttpServer({
    service: brain,
    tokens,
    metrics: new BrainMetrics(),
    logger: silentLogger(),
    bodyLimitBytes: 2048,
    rateLimitPerMinute: 600,
    messageMaxChars: 8000,
  });
  return { app, brain };
}

describe('a real listener on loopback', () => {
  test('binds 127.0.0.1:0 and answers fetch with auth, limits and request ids', async () => {
    const { app, brain } = await build(TokenStore.from([{ name: 'operator', token: TOKEN }]));
    await using _ = app;
    const url = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const tools = await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(tools.status).toBe(200);
    expect(tools.headers.get('cache-control')).toBe('no-store');
    expect(tools.headers.get('x-ratelimit-limit')).toBe('600');
    expect(ToolViewSchema.array().parse(await tools.json())).toHaveLength(1);

    const invoke = await fetch(`${url}/v1/tools/calculator/invoke`, {
      method: 'POST',
      headers: { ...headers, 'x-request-id': 'fetch-1' },
      body: JSON.stringify({ input: { expression: '1+1' } }),
    });
    expect(invoke.status).toBe(200);
    expect(invoke.headers.get('x-request-id')).toBe('fetch-1');
    expect(ToolCallReportSchema.parse(await invoke.json()).outcome).toBe('ok');
    expect(brain.callsTo('invoke')[0]?.args[2]).toEqual({
      actor: 'operator',
      requestId: 'fetch-1',
      principal: { name: 'operator', groups: [] },
    });

    const tooBig = await fetch(`${url}/v1/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ message: 'x'.repeat(4096) }),
    });
    expect(tooBig.status).toBe(413);
    expect(HttpErrorSchema.parse(await tooBig.json()).error.code).toBe('body_too_large');

    const anonymous = await fetch(`${url}/v1/tools`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="caesar"');
  });

  test('sets the server timeouts', async () => {
    const { app } = await build(TokenStore.from([]));
    await using _ = app;
    await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    expect(app.server.requestTimeout).toBe(30_000);
    expect(app.server.keepAliveTimeout).toBe(5_000);
    expect(app.server.timeout).toBe(600_000);
  });
});

describe('bind safety', () => {
  test.each(['0.0.0.0', '::', '192.168.1.10', 'brain.lan'])(
    'refuses to listen on %s with an empty token store',
    async (host) => {
      const { app } = await build(TokenStore.from([]));
      await using _ = app;
      const err = await startHttpServer(app, { host, port: 0 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpBindError);
      expect((err as Error).message).toContain(`non-loopback address ${host} with no API tokens`);
      expect(app.server.listening).toBe(false);
    },
  );

  test('an empty store may still listen on loopback (every call is 401)', async () => {
    const { app } = await build(TokenStore.from([]));
    await using _ = app;
    const url = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    expect(
      (await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(401);
  });

  test.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['localhost.evil.example', false],
    ['', false],
  ])('isLoopbackHost(%j) is %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
