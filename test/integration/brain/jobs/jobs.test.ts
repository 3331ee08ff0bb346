import type { NatsConnection } from '@nats-io/nats-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { createSlowJob } from '../../../fixtures/job-tools.js';
import { jobReaches, startJobBrain, type JobBrain } from '../../../helpers/jobs.js';
import { waitFor } from '../../../helpers/wait.js';

const caller = { actor: 'token:ops' };

/** In-process workers; each has its own connection, as a worker on another host would. */
async function worker(
  brain: JobBrain,
  tool: ReturnType<typeof createSlowJob>,
  host: string,
): Promise<ToolWorker> {
  const nc: NatsConnection = await brain.nats.connect();
  return serveTools([tool], { nc, host, jobs: { heartbeatMs: 300, pullWaitMs: 1000 } });
}

describe('jobs against a real nats-server with JetStream (ADR 0098)', () => {
  let brain: JobBrain;
  const workers: ToolWorker[] = [];
  beforeEach(async () => {
    brain = await startJobBrain();
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await brain.close();
  });

  it('a 20 s job is submitted, not called: answered at once with its id, progress over time, then its result in the audit log', async () => {
    workers.push(await worker(brain, createSlowJob(), 'h1'));
    await brain.learn('slow_job');
    const t0 = Date.now();
    const r = await brain.gateway.invoke('slow_job', { id: 'twenty', seconds: 20 }, caller);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.outcome).toBe('ok');
    expect(r.job).toEqual({ job_id: r.decision_id, status: 'queued' });
    const id = r.decision_id;
    const running = await jobReaches(brain, id, 'running');
    expect(running.worker?.host).toBe('h1');
    // progress moves while it runs: two readings seconds apart show more done
    const first = await waitFor(() => brain.queue.view(id)?.progress, 'a first progress report');
    const later = await waitFor(
      () => {
        const p = brain.queue.view(id)?.progress;
        return p !== undefined && (p.fraction ?? 0) >= (first.fraction ?? 0) + 0.2 ? p : undefined;
      },
      'progress to move on by a fifth',
      10_000,
    );
    expect(Date.parse(later.at) - Date.parse(first.at)).toBeGreaterThanOrEqual(3000);
    const done = await jobReaches(brain, id, 'finished', 30_000);
    expect(done.result).toEqual({ id: 'twenty', ticks: 20 });
    expect(Date.parse(done.ended_at!) - Date.parse(done.submitted_at)).toBeGreaterThanOrEqual(
      19_000,
    );
    const rows = brain.audit.query({ decisionId: id, order: 'oldest', limit: 1000 });
    const types = rows.map((row) => row.type);
    expect(types.slice(0, 3)).toEqual(['tool.called', 'job.submitted', 'job.started']);
    expect(types.at(-1)).toBe('job.finished');
    expect(types.filter((t) => t === 'job.progress').length).toBeGreaterThanOrEqual(15);
    // the live tail saw the same story
    expect(brain.changes.filter((v) => v.id === id).map((v) => v.status)).toContain('running');
  }, 60_000);

  it('cancelling a running job fires its AbortSignal; the job ends cancelled', async () => {
    const aborted: unknown[] = [];
    const tool = createSlowJob({ onAbort: (_id, reason) => aborted.push(reason) });
    workers.push(await worker(brain, tool, 'h1'));
    await brain.learn('slow_job');
    const r = await brain.gateway.invoke(
      'slow_job',
      { id: 'c', seconds: 60, tick_ms: 200 },
      caller,
    );
    const id = r.decision_id;
    await waitFor(() => brain.queue.view(id)?.progress, 'the job to report progress');
    const t0 = Date.now();
    await brain.queue.cancel(id, 'token:ops');
    const ended = await jobReaches(brain, id, 'cancelled');
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(aborted).toHaveLength(1);
    expect((aborted[0] as { code?: string }).code).toBe('job_cancelled');
    expect(ended.error?.code).toBe('job_cancelled');
    expect(ended.worker?.host).toBe('h1');
    const last = brain.audit.query({ decisionId: id, limit: 1 })[0]!;
    expect(last.type).toBe('job.failed');
    expect(last.actor).toBe('worker:h1');
  }, 30_000);

  it('cancelling a job no worker has started takes it off the queue; no worker ever runs it', async () => {
    const started: string[] = [];
    // the tool is live (the policy judges it) on a host too small to take its jobs
    workers.push(
      await worker(
        brain,
        createSlowJob({ minVcpus: 1000, onStart: (i) => started.push(i) }),
        'small',
      ),
    );
    await brain.learn('slow_job');
    // its preflight warns (no live host meets it), so the operator approves it first
    const held = await brain.gateway.invoke('slow_job', { id: 'q', seconds: 1 }, caller);
    expect(held.outcome).toBe('confirmation_required');
    const r = await brain.gateway.confirm(held.confirmation!.id, true, caller);
    expect(brain.queue.view(r.decision_id)?.status).toBe('queued');
    const cancelled = await brain.queue.cancel(r.decision_id, 'token:ops');
    expect(cancelled?.status).toBe('cancelled');
    // the small host goes and a capable worker comes: the queue is empty, so it runs nothing
    await workers.splice(0)[0]!.stop();
    await waitFor(() => brain.registry.tool('slow_job') === undefined, 'the small host to be gone');
    const capable = createSlowJob({ onStart: (i) => started.push(i) });
    workers.push(await worker(brain, capable, 'big'));
    await brain.learn('slow_job');
    const probe = await brain.gateway.invoke('slow_job', { id: 'probe', seconds: 0 }, caller);
    expect(probe.outcome, probe.reason).toBe('ok');
    await jobReaches(brain, probe.decision_id, 'finished');
    expect(started).toEqual(['probe']);
  }, 30_000);

  it('two cancels of a queued job at once end it once', async () => {
    workers.push(await worker(brain, createSlowJob({ minVcpus: 1000 }), 'small'));
    await brain.learn('slow_job');
    const held = await brain.gateway.invoke('slow_job', { id: 'twice', seconds: 1 }, caller);
    const r = await brain.gateway.confirm(held.confirmation!.id, true, caller);
    const both = await Promise.all([
      brain.queue.cancel(r.decision_id, 'token:ops'),
      brain.queue.cancel(r.decision_id, 'token:kitchen'),
    ]);
    expect(both.map((v) => v?.status)).toEqual(['cancelled', 'cancelled']);
    const types = brain.audit
      .query({ decisionId: r.decision_id, order: 'oldest', limit: 100 })
      .map((row) => row.type);
    expect(types.filter((t) => t === 'job.failed')).toHaveLength(1);
  }, 30_000);

  it('a quick job whose start and end come back before its submission row is written still ends finished', async () => {
    // the row is written once the worker has run the job: its `started` is read before it
    let ran!: () => void;
    const ended = new Promise<void>((resolve) => (ran = resolve));
    await brain.close();
    brain = await startJobBrain({ slowRows: { type: 'job.submitted', until: () => ended } });
    workers.push(await worker(brain, createSlowJob({ onEnd: () => ran() }), 'h1'));
    await brain.learn('slow_job');
    const r = await brain.gateway.invoke('slow_job', { id: 'quick', seconds: 0 }, caller);
    expect(r.outcome, r.reason).toBe('ok');
    const done = await jobReaches(brain, r.decision_id, 'finished');
    expect(done.result).toEqual({ id: 'quick', ticks: 0 });
    const types = brain.audit
      .query({ decisionId: r.decision_id, order: 'oldest', limit: 100 })
      .map((row) => row.type);
    expect(types).toEqual(['tool.called', 'job.submitted', 'job.started', 'job.finished']);
  }, 30_000);

  it('a worker runs no more at_most_once jobs at once than its max_concurrency, though each is acked before it starts', async () => {
    let now = 0;
    let most = 0;
    const ended: string[] = [];
    const tool = createSlowJob({
      maxConcurrency: 1,
      onStart: () => (most = Math.max(most, ++now)),
      onEnd: (id) => {
        now--;
        ended.push(id);
      },
    });
    // the jobs are queued before the worker comes, so each pull could find one at once
    const w = await worker(brain, createSlowJob({ minVcpus: 1000 }), 'small');
    await brain.learn('slow_job');
    const ids: string[] = [];
    for (const id of ['a', 'b', 'c']) {
      const held = await brain.gateway.invoke(
        'slow_job',
        { id, seconds: 0.3, tick_ms: 100 },
        caller,
      );
      ids.push((await brain.gateway.confirm(held.confirmation!.id, true, caller)).decision_id);
    }
    workers.push(await worker(brain, tool, 'one-slot'));
    await w.stop();
    for (const id of ids) await jobReaches(brain, id, 'finished', 20_000);
    expect(ended.sort()).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
  }, 60_000);

  it('200 queued jobs are drained by two workers, each run exactly once', async () => {
    const runs = new Map<string, number>();
    const onStart = (id: string) => runs.set(id, (runs.get(id) ?? 0) + 1);
    const make = () =>
      createSlowJob({ name: 'quick_job', delivery: 'at_least_once', maxConcurrency: 8, onStart });
    workers.push(await worker(brain, make(), 'w1'), await worker(brain, make(), 'w2'));
    await brain.learn('quick_job');
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await brain.gateway.invoke(
        'quick_job',
        { id: `j${i}`, seconds: 0.02, tick_ms: 10 },
        caller,
      );
      expect(r.outcome).toBe('ok');
      ids.push(r.decision_id);
    }
    await waitFor(
      () => brain.queue.activeCount() === 0,
      () => `every job to end (${brain.queue.activeCount()} left)`,
      60_000,
      100,
    );
    expect(runs.size).toBe(200);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    // a job leaves the active set as its last row is appended: wait for the row itself
    const finished = await waitFor(
      () => {
        const rows = brain.audit.query({ types: ['job.finished'], limit: 1000 });
        return rows.length >= 200 ? rows : undefined;
      },
      'the 200 job.finished rows',
      10_000,
      50,
    );
    expect(finished).toHaveLength(200);
    const hosts = new Set(
      finished.map((row) => (row.payload as { worker: { host: string } }).worker.host),
    );
    expect(hosts).toEqual(new Set(['w1', 'w2']));
    expect(brain.audit.query({ types: ['job.failed'], limit: 10 })).toHaveLength(0);
  }, 90_000);
});
