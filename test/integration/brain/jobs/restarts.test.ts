import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnJobWorker, type ChildJobWorker } from '../../../fixtures/job-worker.js';
import { jobReaches, startJobBrain, type JobBrain } from '../../../helpers/jobs.js';
import { waitFor } from '../../../helpers/wait.js';

const caller = { actor: 'token:ops' };

/**
 * Jobs survive what a homelab does to them (ADR 0098): a worker SIGKILLed mid-job, a brain
 * restart, a nats-server restart. The workers are child processes (compiled: `npm run
 * build` first), so a kill is a real kill; the lapse is 3 s so the tests stay short.
 */
describe('jobs survive restarts', () => {
  let brain: JobBrain;
  const children: ChildJobWorker[] = [];
  beforeEach(async () => {
    brain = await startJobBrain({ lapseMs: 3000 });
  });
  afterEach(async () => {
    await Promise.allSettled(children.splice(0).map((c) => c.stop()));
    await brain.close();
  });

  const spawn = async (host: string, delivery: string) => {
    const c = await spawnJobWorker(brain.nats.url, { host, delivery, heartbeatMs: 300 });
    children.push(c);
    return c;
  };

  it('an at_least_once job whose worker is SIGKILLed mid-job runs again on another worker after the heartbeat lapses', async () => {
    const first = await spawn('doomed', 'at_least_once');
    await brain.learn('slow_job');
    const r = await brain.gateway.invoke('slow_job', { id: 'k', seconds: 4, tick_ms: 200 }, caller);
    const id = r.decision_id;
    await waitFor(() => brain.queue.view(id)?.progress, 'the job to report progress', 10_000);
    // frozen first, so it cannot finish the job while the survivor starts (seconds, under load)
    process.kill(first.pid, 'SIGSTOP');
    const second = await spawn('survivor', 'at_least_once');
    await first.kill('SIGKILL');
    const done = await jobReaches(brain, id, 'finished', 20_000);
    expect(done.worker?.host).toBe('survivor');
    expect(done.attempt).toBe(2);
    expect(second.started).toEqual([{ id: 'k', attempt: 2 }]);
    const types = brain.audit
      .query({ decisionId: id, order: 'oldest', limit: 1000 })
      .map((x) => x.type);
    expect(types.filter((t) => t === 'job.started')).toHaveLength(2);
    expect(types.at(-1)).toBe('job.finished');
  }, 60_000);

  it('an at_least_once job every worker dies on fails job_attempts_exhausted after the third, and ends once', async () => {
    let worker = await spawn('w1', 'at_least_once');
    await brain.learn('slow_job');
    const r = await brain.gateway.invoke(
      'slow_job',
      { id: 'x', seconds: 30, tick_ms: 200 },
      caller,
    );
    const id = r.decision_id;
    // each worker is killed once it has started the job; the next one takes it after the lapse
    for (let attempt = 1; attempt <= 3; attempt++) {
      const current = worker;
      await waitFor(
        () => current.started.some((s) => s.id === 'x' && s.attempt === attempt),
        `attempt ${attempt} to start`,
        20_000,
      );
      worker = await spawn(`w${attempt + 1}`, 'at_least_once');
      await current.kill('SIGKILL');
    }
    const failed = await jobReaches(brain, id, 'failed', 20_000);
    expect(failed.error?.code).toBe('job_attempts_exhausted');
    expect(failed.error?.message).toMatch(/lost its worker 3 times/);
    // not run again: its one end is this failure (a worker that took it meanwhile was stopped)
    const types = brain.audit
      .query({ decisionId: id, order: 'oldest', limit: 1000 })
      .map((x) => x.type);
    expect(types.filter((t) => t === 'job.failed')).toHaveLength(1);
    expect(types.at(-1)).toBe('job.failed');
  }, 90_000);

  it('an at_most_once job whose worker is SIGKILLed mid-job fails worker_lost, and no other worker runs it', async () => {
    const first = await spawn('doomed', 'at_most_once');
    await brain.learn('slow_job');
    const r = await brain.gateway.invoke(
      'slow_job',
      { id: 'm', seconds: 30, tick_ms: 200 },
      caller,
    );
    const id = r.decision_id;
    await waitFor(() => brain.queue.view(id)?.progress, 'the job to report progress', 10_000);
    const second = await spawn('bystander', 'at_most_once');
    await first.kill('SIGKILL');
    const failed = await jobReaches(brain, id, 'failed', 15_000);
    expect(failed.error?.code).toBe('worker_lost');
    expect(failed.error?.message).toMatch(/at most once/);
    // the bystander takes the next job at once: it was free all along, and never got this one
    const probe = await brain.gateway.invoke('slow_job', { id: 'p', seconds: 0 }, caller);
    await jobReaches(brain, probe.decision_id, 'finished', 20_000);
    expect(second.started.map((s) => s.id)).toEqual(['p']);
  }, 60_000);

  it('a brain restart while a job runs: the job keeps running, and the restarted brain records its end', async () => {
    await spawn('w', 'at_most_once');
    await brain.learn('slow_job');
    const r = await brain.gateway.invoke('slow_job', { id: 'b', seconds: 5, tick_ms: 250 }, caller);
    const id = r.decision_id;
    await jobReaches(brain, id, 'running', 10_000);
    await brain.restart();
    expect(brain.queue.view(id)?.status).toBe('running');
    expect(brain.queue.activeCount()).toBe(1);
    const done = await jobReaches(brain, id, 'finished', 20_000);
    expect(done.result).toEqual({ id: 'b', ticks: 20 });
    // no event was lost or written twice across the restart
    const rows = brain.audit.query({
      decisionId: id,
      types: ['job.started', 'job.finished'],
      limit: 10,
    });
    expect(rows).toHaveLength(2);
  }, 60_000);

  it('a nats-server restart: a queued job and a running one both end, from the file store', async () => {
    await spawn('w', 'at_least_once');
    await brain.learn('slow_job');
    const running = await brain.gateway.invoke(
      'slow_job',
      { id: 'r', seconds: 3, tick_ms: 250 },
      caller,
    );
    await jobReaches(brain, running.decision_id, 'running', 10_000);
    await brain.nats.restart();
    await brain.learn('slow_job');
    // until the brain has reconnected, a submission is answered bus_unavailable: try again
    const queued = await waitFor(
      async () => {
        const q = await brain.gateway.invoke(
          'slow_job',
          { id: 'q', seconds: 1, tick_ms: 250 },
          caller,
        );
        return q.outcome === 'ok' ? q : undefined;
      },
      'a submission after the restart',
      10_000,
      200,
    );
    await jobReaches(brain, running.decision_id, 'finished', 30_000);
    await jobReaches(brain, queued.decision_id, 'finished', 30_000);
  }, 90_000);
});
