import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAuditLog, type AuditLog } from '../../src/audit/index.js';
import { createDispatcher } from '../../src/brain/dispatch/index.js';
import { ToolGateway } from '../../src/brain/gateway/index.js';
import type { JobLimits } from '../../src/brain/gateway/ports.js';
import { JobQueue } from '../../src/brain/jobs/job-queue.js';
import type { JobView } from '../../src/brain/api/index.js';
import { PreflightCache } from '../../src/brain/preflight/index.js';
import { startRegistry, type Registry } from '../../src/brain/registry/index.js';
import { openPolicyStore, type PolicyStore } from '../../src/policy/index.js';
import type { NatsConnection } from '@nats-io/nats-core';
import { JetStreamLink } from '../../src/bus/jetstream.js';
import {
  JOB_EVENT_CONSUMER,
  JOB_EVENT_STREAM,
  JOB_STREAM,
  jobConsumer,
  jsApi,
} from '../../src/protocol/index.js';
import { startNats, startNatsCluster, type TestNats, type TestNatsCluster } from './nats.js';
import { waitFor } from './wait.js';

/** The brain's parts that jobs go through, over a real nats-server with JetStream. */
export interface JobBrain extends AsyncDisposable {
  readonly nats: TestNats;
  readonly dir: string;
  readonly audit: AuditLog;
  readonly registry: Registry;
  readonly queue: JobQueue;
  readonly gateway: ToolGateway;
  /** Every job view the queue reported, in order (what the live tail relays). */
  readonly changes: JobView[];
  /**
   * Closes the brain's parts (connection, registry, queue, gateway, audit log) and opens them
   * again on the same files, as a restarted brain does.
   */
  restart(): Promise<void>;
  /** Waits until the registry knows `tool`. */
  learn(tool: string): Promise<void>;
  /**
   * What JetStream holds for `tool`'s jobs and the brain's event reader (pending, waiting
   * pulls, ack floors), for a failed wait to say where a job stopped.
   */
  jetstreamState(tool: string): Promise<string>;
  close(): Promise<void>;
}

export interface JobBrainOptions {
  /** @default every tool allowed */
  policy?: string;
  /** A silent worker's job is lost after this long (the consumer's ack wait). @default 3000 */
  lapseMs?: number;
  limits?: JobLimits;
  /** Copies of the job streams (a cluster only). @default 1 */
  replicas?: number;
  /**
   * The queue's rows of this type are written only once `until` resolves, as on a disk busy
   * for that long (the rows themselves are the real audit log's).
   */
  slowRows?: { type: string; until: () => Promise<unknown> };
}

export async function startJobBrain(o: JobBrainOptions = {}): Promise<JobBrain> {
  const nats = await startNats({ jetstream: true });
  const parts = await jobBrainOn({ connect: () => nats.connect(), stop: () => nats.stop() }, o);
  return Object.defineProperties(parts, { nats: { value: nats } }) as JobBrain;
}

/** The same brain parts on a cluster with clustered JetStream (ADR 0101). */
export interface ClusterJobBrain extends Omit<JobBrain, 'nats'> {
  readonly cluster: TestNatsCluster;
  /** The JetStream link the brain's connection speaks for `streamInfo`. */
  streamInfo(stream: string): Promise<{ cluster?: { leader?: string; replicas?: unknown[] } }>;
}

/**
 * The brain's job parts on a fresh `size`-server cluster with JetStream on every server, the
 * brain connected to server `brainNode` only (it learns the others from the cluster) and
 * keeping `replicas` copies of the streams.
 */
export async function startClusterJobBrain(
  o: JobBrainOptions & { size: number; brainNode: number; replicas: number },
): Promise<ClusterJobBrain> {
  const cluster = await startNatsCluster(o.size, { jetstream: true });
  let nc: NatsConnection | undefined;
  const parts = await jobBrainOn(
    {
      connect: async () => (nc = await cluster.connect(o.brainNode)),
      stop: () => cluster.stop(),
    },
    o,
  ).catch(async (err: unknown) => {
    await cluster.stop();
    throw err;
  });
  const streamInfo = async (stream: string) => {
    const link = new JetStreamLink(nc!, '_INBOX');
    try {
      return await link.api<{ cluster?: { leader?: string; replicas?: unknown[] } }>(
        jsApi.streamInfo(stream),
      );
    } finally {
      link.close();
    }
  };
  return Object.defineProperties(parts, {
    cluster: { value: cluster },
    streamInfo: { value: streamInfo },
  }) as ClusterJobBrain;
}

interface BrainBus {
  connect(): Promise<NatsConnection>;
  stop(): Promise<void>;
}

async function jobBrainOn(bus: BrainBus, o: JobBrainOptions): Promise<Omit<JobBrain, 'nats'>> {
  const dir = mkdtempSync(join(tmpdir(), 'caesar-jobs-'));
  const policyFile = join(dir, 'policy.yaml');
  writeFileSync(
    policyFile,
    o.policy ??
      'version: 1\nallowed_tools:\n  - tool: slow_job\n  - tool: quick_job\n  - tool: big_job\n',
  );
  const changes: JobView[] = [];
  type Parts = Pick<JobBrain, 'audit' | 'registry' | 'queue' | 'gateway' | 'jetstreamState'> & {
    policy: PolicyStore;
    close(): Promise<void>;
  };
  const open = async (): Promise<Parts> => {
    const nc = await bus.connect();
    const audit = openAuditLog({ path: join(dir, 'audit.db') });
    const policy = await openPolicyStore({ path: policyFile, reloadSignal: null });
    const registry = await startRegistry({ nc });
    const slow = o.slowRows;
    const queue = await JobQueue.start({
      nc,
      audit:
        slow === undefined
          ? audit
          : {
              query: (q) => audit.query(q),
              append: async (event) => {
                if (event.type === slow.type) await slow.until();
                return audit.append(event);
              },
            },
      lapseMs: o.lapseMs ?? 3000,
      ...(o.replicas === undefined ? {} : { replicas: o.replicas }),
      onChange: (v) => changes.push(v),
    });
    const gateway = new ToolGateway({
      tools: registry,
      policy,
      audit,
      dispatcher: createDispatcher({ nc }),
      callTimeoutMs: 5000,
      confirmationTtlMs: 60_000,
      preflight: new PreflightCache(nc, { ttlMs: 0 }),
      jobs: queue,
      ...(o.limits ? { jobLimits: o.limits } : {}),
    });
    return {
      audit,
      policy,
      registry,
      queue,
      gateway,
      jetstreamState: (tool) => jetstreamState(nc, tool),
      async close() {
        gateway.close();
        await queue.close();
        await registry.close();
        await nc.close();
        policy.close();
        await audit.close();
      },
    };
  };
  let parts = await open();
  const close = async () => {
    await parts.close().catch(() => undefined);
    await bus.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    dir,
    changes,
    get audit() {
      return parts.audit;
    },
    get registry() {
      return parts.registry;
    },
    get queue() {
      return parts.queue;
    },
    get gateway() {
      return parts.gateway;
    },
    jetstreamState: (tool) => parts.jetstreamState(tool),
    async restart() {
      await parts.close();
      parts = await open();
    },
    async learn(tool) {
      await waitFor(() => parts.registry.tool(tool), `the registry to learn ${tool}`, 10_000);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function jetstreamState(nc: NatsConnection, tool: string): Promise<string> {
  const link = new JetStreamLink(nc, '_INBOX');
  const info = async (stream: string, consumer: string) => {
    try {
      const i = await link.api<Record<string, unknown>>(jsApi.consumerInfo(stream, consumer));
      const { num_pending, num_ack_pending, num_waiting, num_redelivered, delivered, ack_floor } =
        i;
      const state = { num_pending, num_ack_pending, num_waiting, num_redelivered };
      return `${consumer}: ${JSON.stringify({ ...state, delivered, ack_floor })}`;
    } catch (err) {
      return `${consumer}: ${(err as Error).message}`;
    }
  };
  try {
    const stream = await link
      .api<{ state?: unknown }>(jsApi.streamInfo(JOB_STREAM))
      .then((i) => JSON.stringify(i.state))
      .catch((err: unknown) => (err as Error).message);
    const lines = await Promise.all([
      info(JOB_STREAM, jobConsumer(tool)),
      info(JOB_EVENT_STREAM, JOB_EVENT_CONSUMER),
    ]);
    return [`${JOB_STREAM}: ${stream}`, ...lines].join('; ');
  } finally {
    link.close();
  }
}

/**
 * Waits until job `id` has `status` (read from the audit log, as `GET /v1/jobs/{id}` does);
 * a wait that times out says what JetStream held for the job's tool then.
 */
export async function jobReaches(
  brain: Pick<JobBrain, 'queue' | 'jetstreamState'>,
  id: string,
  status: JobView['status'],
  timeoutMs = 10_000,
): Promise<JobView> {
  try {
    return await waitFor(
      () => {
        const v = brain.queue.view(id);
        return v?.status === status ? v : undefined;
      },
      () => `job ${id} to be ${status} (it is ${brain.queue.view(id)?.status ?? 'unknown'})`,
      timeoutMs,
    );
  } catch (err) {
    const tool = brain.queue.view(id)?.tool;
    if (tool === undefined) throw err;
    const state = await brain.jetstreamState(tool).catch((e: unknown) => (e as Error).message);
    throw new Error(`${(err as Error).message}; JetStream then: ${state}`, { cause: err });
  }
}
