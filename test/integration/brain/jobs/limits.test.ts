import { afterEach, describe, expect, it } from 'vitest';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { createSlowJob } from '../../../fixtures/job-tools.js';
import {
  jobReaches,
  startJobBrain,
  type JobBrain,
  type JobBrainOptions,
} from '../../../helpers/jobs.js';

const caller = { actor: 'token:ops' };

/** Issue 33 scope 3: what no host can take is asked first; operator limits hold at submission. */
describe('jobs: requirements no host meets, and tools.limits (ADR 0098)', () => {
  let brain: JobBrain | undefined;
  const workers: ToolWorker[] = [];
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await brain?.close();
  });

  const start = async (o: JobBrainOptions, minVcpus?: number) => {
    brain = await startJobBrain(o);
    const tool = createSlowJob(minVcpus === undefined ? {} : { minVcpus });
    const nc = await brain.nats.connect();
    workers.push(await serveTools([tool], { nc, host: 'small', jobs: { pullWaitMs: 1000 } }));
    await brain.learn('slow_job');
    return brain;
  };

  it('a job no live host can take is a warning first: the operator is asked, and a rejection refuses it', async () => {
    const b = await start({}, 1000);
    const held = await b.gateway.invoke('slow_job', { id: 'x', seconds: 1 }, caller);
    expect(held.outcome).toBe('confirmation_required');
    expect(held.confirmation?.preflight_warnings?.join(' ')).toMatch(
      /min_vcpus: the tool asks for 1000 vCPUs/,
    );
    const refused = await b.gateway.confirm(held.confirmation!.id, false, caller);
    expect(refused.outcome).toBe('rejected');
    expect(b.audit.query({ types: ['job.submitted'], limit: 10 })).toHaveLength(0);
  }, 30_000);

  it('approved anyway, it waits queued (no worker takes it) until the operator cancels it', async () => {
    const b = await start({}, 1000);
    const held = await b.gateway.invoke('slow_job', { id: 'y', seconds: 1 }, caller);
    const approved = await b.gateway.confirm(held.confirmation!.id, true, caller);
    expect(approved.outcome).toBe('ok');
    const id = approved.job!.job_id;
    // the small host pulls nothing: after two of its pull waits the job is still queued
    await new Promise((r) => setTimeout(r, 2500));
    expect(b.queue.view(id)?.status).toBe('queued');
    expect((await b.queue.cancel(id, 'token:ops'))?.status).toBe('cancelled');
  }, 30_000);

  it('max_concurrent_jobs_per_tool refuses the next job at submission, with no tool.called row', async () => {
    const b = await start({ limits: { maxPerTool: 2 } });
    const a = await b.gateway.invoke('slow_job', { id: 'a', seconds: 30, tick_ms: 500 }, caller);
    const c = await b.gateway.invoke('slow_job', { id: 'c', seconds: 30, tick_ms: 500 }, caller);
    expect([a.outcome, c.outcome]).toEqual(['ok', 'ok']);
    const third = await b.gateway.invoke('slow_job', { id: 'd', seconds: 1 }, caller);
    expect(third.outcome).toBe('failed');
    expect(third.error?.code).toBe('job_limit_reached');
    expect(third.reason).toMatch(/max_concurrent_jobs_per_tool is 2/);
    const rows = b.audit.query({ decisionId: third.decision_id, limit: 10 });
    expect(rows.map((r) => r.type)).toEqual(['tool.failed']);
    // one ends: the next is taken again
    await b.queue.cancel(a.decision_id, 'token:ops');
    await jobReaches(b, a.decision_id, 'cancelled');
    const fourth = await b.gateway.invoke('slow_job', { id: 'e', seconds: 0 }, caller);
    expect(fourth.outcome).toBe('ok');
    await b.queue.cancel(c.decision_id, 'token:ops');
  }, 30_000);

  it('max_wall_clock refuses a job tool whose timeout_ms is longer', async () => {
    const b = await start({ limits: { maxWallClockMs: 60_000 } });
    const long = await b.gateway.invoke('slow_job', { id: 'w', seconds: 1 }, caller);
    expect(long.error?.code).toBe('job_limit_reached');
    expect(long.reason).toMatch(/max_wall_clock is 60000 ms and the tool may run 180000 ms/);
  }, 30_000);
});
