/**
 * Jobs (issue 33, ADR 0098): what submitting a job costs, against a plain call through the
 * same gateway, and how fast two workers drain a queue. One nats-server with JetStream (file
 * store in a temp dir), the brain's parts in this process (audit log, policy, registry, job
 * queue, gateway), two in-process workers with 8 slots each.
 *
 * - submission latency: `gateway.invoke` of a job tool, from the call to its answer (policy,
 *   durable `tool.called`, publish with a stream ack, durable `job.submitted`); baseline: the
 *   same for a plain call that is dispatched and answered (`tool.called` + `tool.result`).
 * - submission throughput: SUBMITS jobs, 8 callers at once, nothing taking them.
 * - drain: SUBMITS queued jobs run to `job.finished` by two workers; each started once.
 *
 *   npm run build && node dist/bench/run.js jobs
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { openAuditLog } from '../src/audit/index.js';
import { createDispatcher } from '../src/brain/dispatch/index.js';
import { ToolGateway } from '../src/brain/gateway/index.js';
import { JobQueue } from '../src/brain/jobs/job-queue.js';
import { startRegistry } from '../src/brain/registry/index.js';
import { connectBus, startNatsServer } from '../src/bus/index.js';
import { defineTool, serveTools, type ToolWorker } from '../src/legion/index.js';
import { openPolicyStore } from '../src/policy/index.js';
import { benchSize, percentile, throughput, type BenchContext } from './harness.js';

const LATENCY_RUNS = benchSize(200, 10);
const SUBMITS = benchSize(500, 20);

const runs = new Map<string, number>();

function tool(name: string, job: boolean) {
  return defineTool({
    name,
    version: '1.0.0',
    description: 'Bench tool: answers its id.',
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: job ? 'remote_job' : 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    ...(job ? { job: { delivery: 'at_least_once' as const } } : {}),
    input: z.strictObject({ id: z.string() }),
    output: z.object({ id: z.string() }),
    maxConcurrency: 8,
    handler: ({ id }) => {
      runs.set(id, (runs.get(id) ?? 0) + 1);
      return { id };
    },
  });
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('bench: timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'caesar-bench-jobs-'));
  const server = await startNatsServer({ args: ['-js', '-sd', join(dir, 'js')] });
  const workers: ToolWorker[] = [];
  const ncs = [];
  try {
    const nc = await connectBus({ servers: server.url });
    ncs.push(nc);
    const audit = openAuditLog({ path: join(dir, 'audit.db') });
    writeFileSync(
      join(dir, 'policy.yaml'),
      'version: 1\nallowed_tools:\n  - tool: bench_job\n  - tool: bench_call\n',
    );
    const policy = await openPolicyStore({ path: join(dir, 'policy.yaml'), reloadSignal: null });
    const registry = await startRegistry({ nc });
    const queue = await JobQueue.start({ nc, audit });
    const gateway = new ToolGateway({
      tools: registry,
      policy,
      audit,
      dispatcher: createDispatcher({ nc }),
      callTimeoutMs: 5000,
      confirmationTtlMs: 60_000,
      jobs: queue,
    });
    const caller = { actor: 'bench' };
    const tools = [tool('bench_call', false)];
    const serve = async (host: string, jobTool: boolean, tiny = false) => {
      const wnc = await connectBus({ servers: server.url });
      ncs.push(wnc);
      const defs = jobTool ? [tool('bench_job', true)] : tools;
      // a host too small for the tool's 16 MB serves it (the brain knows it) but takes no job
      const capacity = tiny ? { capacity: { vcpus: 1, memory_gb: 0.001, gpus: [] } } : {};
      workers.push(
        await serveTools(defs, { nc: wnc, host, jobs: { pullWaitMs: 1000 }, ...capacity }),
      );
    };
    await serve('calls', false);
    await until(() => registry.tool('bench_call') !== undefined, 10_000);

    // latency of a plain call, then of a job submission (no worker takes jobs yet)
    const callMs: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) {
      const t0 = performance.now();
      await gateway.invoke('bench_call', { id: `c${i}` }, caller);
      callMs.push(performance.now() - t0);
    }
    // the job tool is known, on a host that takes none: nothing drains the queue meanwhile
    await serve('tiny', true, true);
    await until(() => registry.tool('bench_job') !== undefined, 10_000);
    const submitMs: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) {
      const t0 = performance.now();
      const r = await gateway.invoke('bench_job', { id: `l${i}` }, caller);
      if (r.outcome !== 'ok') throw new Error(`bench: submission failed: ${r.reason}`);
      submitMs.push(performance.now() - t0);
    }
    ctx.section(`Jobs: submission against a plain call (${LATENCY_RUNS} each, one at a time)`);
    ctx.figure('baseline: plain call, p50', percentile(callMs, 50), 'ms');
    ctx.figure('job submission, p50', percentile(submitMs, 50), 'ms', {
      baseline: percentile(callMs, 50),
    });
    ctx.figure('baseline: plain call, p99', percentile(callMs, 99), 'ms');
    ctx.figure('job submission, p99', percentile(submitMs, 99), 'ms', {
      baseline: percentile(callMs, 99),
    });

    let n = 0;
    const submitRate = await throughput(
      async () => {
        await gateway.invoke('bench_job', { id: `t${n++}` }, caller);
      },
      SUBMITS,
      8,
    );
    ctx.section(`Jobs: ${SUBMITS} submissions, 8 at once; then two workers drain the queue`);
    ctx.figure('submissions', submitRate, '/s');

    const queued = LATENCY_RUNS + SUBMITS;
    const t0 = performance.now();
    await serve('w1', true);
    await serve('w2', true);
    await until(() => queue.activeCount() === 0, 300_000);
    const drainS = (performance.now() - t0) / 1000;
    ctx.figure('drained to job.finished, two workers', queued / drainS, 'jobs/s');
    const twice = [...runs.entries()].filter(([id, c]) => id[0] !== 'c' && c !== 1).length;
    ctx.figure('jobs run other than once', twice, 'jobs');

    for (const w of workers.splice(0)) await w.stop();
    gateway.close();
    await queue.close();
    await registry.close();
    policy.close();
    await audit.close();
  } finally {
    await Promise.allSettled(workers.map((w) => w.stop()));
    await Promise.allSettled(ncs.map((c) => c.close()));
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
