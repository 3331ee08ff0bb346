import { describe, expect, test } from 'vitest';
import { HttpErrorSchema } from '../../../../src/brain/api/index.js';
import { auth, CI, harness } from './harness.js';

describe('per-token rate limit', () => {
  test('the 4th request of a token in a minute is 429 while another token still passes', async () => {
    await using h = await harness({ rateLimitPerMinute: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await h.app.inject({ url: '/v1/tools', headers: auth() })).statusCode);
    expect(statuses).toEqual([200, 200, 200]);

    const limited = await h.app.inject({ url: '/v1/tools', headers: auth() });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['cache-control']).toBe('no-store');
    const body = HttpErrorSchema.parse(limited.json());
    expect(body.error.code).toBe('too_many_requests');
    expect(body.request_id).toBe(limited.headers['x-request-id']);

    expect((await h.app.inject({ url: '/v1/tools', headers: auth(CI) })).statusCode).toBe(200);
    expect(h.brain.callsTo('listTools')).toHaveLength(4); // 3 operator + 1 ci; the 429 never reached it
  });

  test('the budget is per token across routes, not per route', async () => {
    await using h = await harness({ rateLimitPerMinute: 3 });
    await h.app.inject({ url: '/v1/tools', headers: auth() });
    await h.app.inject({ url: '/readyz', headers: auth() });
    await h.app.inject({ url: '/v1/audit', headers: auth() });
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/chat',
      headers: auth(),
      payload: { message: 'hi' },
    });
    expect(res.statusCode).toBe(429);
  });

  test('unauthenticated requests do not consume a real token budget', async () => {
    await using h = await harness({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 10; i++) {
      expect((await h.app.inject({ url: '/v1/tools' })).statusCode).toBe(401);
      expect(
        (
          await h.app.inject({
            url: '/v1/tools',
            headers: { authorization: 'Bearer wrong-wrong-wrong-wrong-wrong' },
          })
        ).statusCode,
      ).toBe(401);
    }
    for (let i = 0; i < 3; i++)
      expect((await h.app.inject({ url: '/v1/tools', headers: auth() })).statusCode).toBe(200);
  });

  test('/healthz is not limited', async () => {
    await using h = await harness({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 6; i++)
      expect((await h.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  test('authenticated requests to unknown routes count too', async () => {
    await using h = await harness({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++)
      expect((await h.app.inject({ url: '/v1/probe', headers: auth() })).statusCode).toBe(404);
    expect((await h.app.inject({ url: '/v1/probe', headers: auth() })).statusCode).toBe(429);
  });

  test('a limit of 0 turns limiting off', async () => {
    await using h = await harness({ rateLimitPerMinute: 0 });
    for (let i = 0; i < 20; i++)
      expect((await h.app.inject({ url: '/v1/tools', headers: auth() })).statusCode).toBe(200);
  });
});
