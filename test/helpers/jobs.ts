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
import { jsApi } from '../../src/protocol/index.js';
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
  type Parts = Pick<JobBrain, 'audit' | 'registry' | 'queue' | 'gateway'> & {
    policy: PolicyStore;
    close(): Promise<void>;
  };
  const open = async (): Promise<Parts> => {
    const nc = await bus.connect();
    const audit = openAuditLog({ path: join(dir, 'audit.db') });
    const policy = await openPolicyStore({ path: policyFile, reloadSignal: null });
    const registry = await startRegistry({ nc });
    const queue = await JobQueue.start({
      nc,
      audit,
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

/** Waits until job `id` has `status` (read from the audit log, as `GET /v1/jobs/{id}` does). */
export async function jobReaches(
  brain: JobBrain,
  id: string,
  status: JobView['status'],
  timeoutMs = 10_000,
): Promise<JobView> {
  return waitFor(
    () => {
      const v = brain.queue.view(id);
      return v?.status === status ? v : undefined;
    },
    () => `job ${id} to be ${status} (it is ${brain.queue.view(id)?.status ?? 'unknown'})`,
    timeoutMs,
  );
}
