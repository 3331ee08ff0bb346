import { describe, expect, it } from 'vitest';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import type { JobView } from '../../../../src/brain/api/index.js';
import { JobListResponseSchema, JobViewSchema } from '../../../../src/brain/api/index.js';
import { auth, CI, harness, OPERATOR } from './harness.js';

const job = (id: string, status: JobView['status']): JobView => ({
  id,
  tool: 'slow_job',
  status,
  delivery: 'at_most_once',
  actor: 'token:operator',
  submitted_at: '2026-12-06T20:00:00.000Z',
  stream_seq: 1,
});

// the routes docs/api.md documents under `GET /v1/jobs`
describe('GET /v1/jobs, GET /v1/jobs/{id}, POST /v1/jobs/{id}/cancel (ADR 0098)', () => {
  it('lists the jobs newest first, with the limit asked', async () => {
    await using h = await harness();
    h.brain.jobs = [job('b', 'running'), job('a', 'finished')];
    const res = await h.app.inject({ method: 'GET', url: '/v1/jobs?limit=1', headers: auth() });
    expect(res.statusCode).toBe(200);
    const body = JobListResponseSchema.parse(res.json());
    expect(body.jobs.map((j) => j.id)).toEqual(['b']);
    expect(h.brain.callsTo('listJobs')[0]?.args).toEqual([1]);
  });

  it('shows one job, and answers 404 job_not_found for an id no job has', async () => {
    await using h = await harness();
    h.brain.jobs = [job('a', 'queued')];
    const res = await h.app.inject({ method: 'GET', url: '/v1/jobs/a', headers: auth() });
    expect(JobViewSchema.parse(res.json()).status).toBe('queued');
    const missing = await h.app.inject({ method: 'GET', url: '/v1/jobs/nope', headers: auth() });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'job_not_found' } });
    const bad = await h.app.inject({ method: 'GET', url: '/v1/jobs/a.b', headers: auth() });
    expect(bad.statusCode).toBe(400);
  });

  it('cancels as the caller, and needs the invoke scope to', async () => {
    await using h = await harness({
      tokens: TokenStore.from([
        { name: 'operator', token: OPERATOR },
        { name: 'ci', token: CI, scopes: ['read'] },
      ]),
    });
    h.brain.jobs = [job('a', 'queued')];
    const denied = await h.app.inject({
      method: 'POST',
      url: '/v1/jobs/a/cancel',
      headers: auth(CI),
    });
    expect(denied.statusCode).toBe(403);
    const res = await h.app.inject({ method: 'POST', url: '/v1/jobs/a/cancel', headers: auth() });
    expect(res.statusCode).toBe(200);
    expect(JobViewSchema.parse(res.json()).status).toBe('cancelled');
    expect(h.brain.callsTo('cancelJob')[0]?.args[1]).toMatchObject({ actor: 'operator' });
  });
});
