import { afterEach, expect, test } from 'vitest';
import { spawnJobWorker, type ChildJobWorker } from '../../../fixtures/job-worker.js';
import { startClusterJobBrain, type ClusterJobBrain } from '../../../helpers/jobs.js';
import { waitFor } from '../../../helpers/wait.js';
import { isJetStreamSettling } from '../../../../src/bus/jetstream-ready.js';
import { JOB_STREAM } from '../../../../src/protocol/index.js';
import type { JobView } from '../../../../src/brain/api/index.js';

/**
 * Jobs on a clustered JetStream (ADR 0101): three real nats-servers, each with JetStream and a
 * store of its own, the job streams kept as three replicas. The brain waits for the
 * meta-leader before it makes the streams; a job runs to its end; and when the server that
 * leads the work-queue stream is SIGKILLed while one job runs and another waits, and started
 * again as `caesar up`'s keeper would, both jobs end once each: no loss, no second run. The
 * worker is a child process (compiled: `npm run build` first). The lapse (the consumer's ack
 * wait) is 20 s, longer than a Raft election on nats-server 2.9 (4-9 s), so a leader change
 * never reads as a lost worker.
 */

const caller = { actor: 'token:ops' };
let brain: ClusterJobBrain | undefined;
const children: ChildJobWorker[] = [];

afterEach(async () => {
  await Promise.allSettled(children.splice(0).map((c) => c.stop()));
  await brain?.close();
  brain = undefined;
});

/** Job `id`'s view once its status is `status`, read from the audit log. */
function reaches(b: ClusterJobBrain, id: string, status: JobView['status'], timeoutMs: number) {
  return waitFor(
    () => {
      const v = b.queue.view(id);
      return v?.status === status ? v : undefined;
    },
    () => `job ${id} to be ${status} (it is ${b.queue.view(id)?.status ?? 'unknown'})`,
    timeoutMs,
    50,
  );
}

/** The audit row types of job `id`, oldest first. */
function rowTypes(b: ClusterJobBrain, id: string): string[] {
  return b.audit.query({ decisionId: id, order: 'oldest', limit: 1000 }).map((r) => r.type);
}

test('a job submitted through the brain on a three-server cluster runs to its end, from a stream kept as three replicas', async () => {
  brain = await startClusterJobBrain({ size: 3, brainNode: 0, replicas: 3, lapseMs: 20_000 });
  const info = await brain.streamInfo(JOB_STREAM);
  expect(info.cluster?.leader).toMatch(/^caesar-\d$/);
  expect(info.cluster?.replicas).toHaveLength(2);

  const worker = await spawnJobWorker(brain.cluster.urls[1]!, { host: 'w', heartbeatMs: 300 });
  children.push(worker);
  await brain.learn('slow_job');
  const r = await brain.gateway.invoke('slow_job', { id: 'one', seconds: 1, tick_ms: 200 }, caller);
  expect(r.outcome).toBe('ok');
  const done = await reaches(brain, r.decision_id, 'finished', 30_000);
  expect(done.result).toEqual({ id: 'one', ticks: 5 });
  expect(rowTypes(brain, r.decision_id).filter((t) => t === 'job.finished')).toHaveLength(1);
}, 90_000);

test('kill -9 of the server leading the work-queue stream while a job runs and another waits: the server comes back, and each job ends once', async () => {
  brain = await startClusterJobBrain({ size: 3, brainNode: 0, replicas: 3, lapseMs: 20_000 });
  const leader = (await brain.streamInfo(JOB_STREAM)).cluster?.leader ?? '';
  const victim = Number(/^caesar-(\d)$/.exec(leader)?.[1]) - 1;
  expect(victim, `the stream's leader (${leader})`).toBeGreaterThanOrEqual(0);
  // the worker runs one job at a time, on a server that is not the victim
  const workerNode = [0, 1, 2].find((i) => i !== victim)!;
  const worker = await spawnJobWorker(brain.cluster.urls[workerNode]!, {
    host: 'w',
    delivery: 'at_least_once',
    heartbeatMs: 300,
    maxConcurrency: 1,
  });
  children.push(worker);
  await brain.learn('slow_job');

  const running = await brain.gateway.invoke(
    'slow_job',
    { id: 'running', seconds: 4, tick_ms: 200 },
    caller,
  );
  await waitFor(
    () => brain!.queue.view(running.decision_id)?.progress,
    'the job to report progress',
    20_000,
  );
  const queued = await brain.gateway.invoke(
    'slow_job',
    { id: 'queued', seconds: 1, tick_ms: 200 },
    caller,
  );
  expect(brain.queue.view(queued.decision_id)?.status).toBe('queued');

  const exit = await brain.cluster.kill(victim);
  expect(exit.signal).toBe('SIGKILL');
  // started again on the same ports with the same store, as the keeper does
  await brain.cluster.restart(victim);

  const first = await reaches(brain, running.decision_id, 'finished', 60_000).catch(
    (err: unknown) => {
      throw new Error(`${(err as Error).message}; the worker said:\n${worker.stderr()}`);
    },
  );
  const second = await reaches(brain, queued.decision_id, 'finished', 60_000);
  expect(first.result).toEqual({ id: 'running', ticks: 20 });
  expect(second.result).toEqual({ id: 'queued', ticks: 5 });
  // each ran once, on its first delivery, and each has one start and one end in the log
  expect(worker.started).toEqual([
    { id: 'running', attempt: 1 },
    { id: 'queued', attempt: 1 },
  ]);
  for (const id of [running.decision_id, queued.decision_id]) {
    const types = rowTypes(brain, id);
    expect(
      types.filter((t) => t === 'job.started'),
      id,
    ).toHaveLength(1);
    expect(
      types.filter((t) => t === 'job.finished'),
      id,
    ).toHaveLength(1);
    expect(
      types.filter((t) => t === 'job.failed'),
      id,
    ).toHaveLength(0);
  }
  // the stream has its three replicas again, the restarted server among them
  await waitFor(
    async () => {
      const info = await brain!.streamInfo(JOB_STREAM).catch((err: unknown) => {
        if (isJetStreamSettling(err)) return undefined; // between leaders: ask again
        throw err;
      });
      return info?.cluster?.replicas?.length === 2;
    },
    'the stream to have its replicas again',
    30_000,
    200,
  );
}, 150_000);
