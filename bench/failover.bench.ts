/**
 * Failover: how long tool calls fail when one nats-server of a three-server cluster is killed
 * with SIGKILL while calls flow at concurrency 16 (issue 14, scope 3; ADR 0051).
 *
 * Each round starts a fresh loopback cluster (`startNatsCluster`, the code `caesar up
 * --cluster` runs) and puts the brain's dispatcher and registry on server C, and one echo
 * worker on server A (each client given one URL and learning the others from the cluster,
 * with the bus's default reconnect settings). Sixteen lanes call the echo tool, each call
 * with a 2 s deadline; a lane whose call failed waits 10 ms before its next one, as a
 * caller retrying would. Beside them a probe sends one call every 20 ms (500 ms deadline),
 * so that the time until a new call succeeds is seen even while all 16 lanes wait out calls
 * lost in flight. After 3.5 s of steady calls one server is killed:
 *
 * - `worker`: A, the server of the tool's only worker (the outage a one-worker tool sees);
 * - `worker+replica`: A, while a second instance of the tool serves from B;
 * - `brain`: C, the brain's server.
 *
 * Per round: time from the kill to the reconnect of the client that lost its server; to the
 * first success of a probe call sent after the kill (how long new calls fail); to the first
 * success of a lane's call sent after the kill (lanes wait out their lost calls first); to
 * the end of the last failed call (calls lost in flight fail only at their deadline); and the
 * lanes' failed calls by error code. The figures are medians and maxima over the rounds.
 *
 * A second section (issue 34, ADR 0099) measures the calls in flight at the kill: 16 lanes,
 * half on an idempotent tool and half on one that acts (not idempotent), each call 20 ms of
 * work with a 10 s deadline (the brain's default), a worker on A and one on B, with the
 * dispatcher's recovery off (before) and on (after). Per case: the longest call of the round
 * and the longest stretch from the kill with no call answered at all, and the lanes' failed
 * calls by code.
 *
 *   npm run build && node dist/bench/run.js failover
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { z } from 'zod';
import { createDispatcher, type Dispatcher } from '../src/brain/dispatch/index.js';
import { Registry } from '../src/brain/registry/index.js';
import { connectBus, startNatsCluster, type NatsCluster } from '../src/bus/index.js';
import {
  defineTool,
  serveTools,
  type ToolDefinition,
  type ToolWorker,
} from '../src/legion/index.js';
import { benchRounds, percentile, type BenchContext } from './harness.js';

const TOOL = 'bench_failover';
const LANES = 16;
const DEADLINE_MS = 2000;
const RETRY_PAUSE_MS = 10;
/**
 * Longer than the bus's reconnect wait plus jitter (2 s + up to 1 s): nats.js first retries
 * the server it lost once that wait has passed since it connected, so a client a second old
 * would wait out the rest of it; a long-running process never does.
 */
const STEADY_MS = 3500;
const PROBE_EVERY_MS = 20;
const PROBE_DEADLINE_MS = 500;
const ROUNDS = benchRounds(5);
const A = 0;
const C = 2;

type Scenario = 'worker' | 'worker+replica' | 'brain';

function echoDeclaration() {
  return {
    name: TOOL,
    version: '1.0.0',
    description: 'Failover benchmark: returns its input.',
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: 'local' as const,
    resourceRequirements: { cpu: 'low' as const, memory_mb: 16, network: false },
    input: z.object({ n: z.number() }),
    output: z.object({ n: z.number() }),
    maxConcurrency: 64,
    maxQueue: 256,
  };
}

const echoTool = defineTool({
  ...echoDeclaration(),
  handler: (input) => ({ n: input.n }),
});

interface Outcome {
  sentAt: number;
  settledAt: number;
  code: string | undefined;
}

interface RoundFigures {
  reconnectMs: number;
  probeOkMs: number;
  firstOkMs: number;
  lastFailMs: number;
  failed: Map<string, number>;
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section(
    `failover: kill -9 of one nats-server of 3, calls at c=${LANES}, ${DEADLINE_MS} ms deadline (${ROUNDS} rounds each)`,
  );
  for (const scenario of ['worker', 'worker+replica', 'brain'] as const) {
    const rounds: RoundFigures[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(scenario));
    report(ctx, scenario, rounds);
  }
  ctx.section(
    `in-flight recovery (ADR 0099): kill -9 at c=${LANES}, ${RECOVERY_DEADLINE_MS} ms deadline, ${WORK_MS} ms calls (${RECOVERY_ROUNDS} rounds each)`,
  );
  for (const victim of ['brain', 'worker'] as const) {
    for (const recovery of [false, true]) {
      const rounds: InFlightFigures[] = [];
      for (let i = 0; i < RECOVERY_ROUNDS; i++) rounds.push(await inFlightRound(victim, recovery));
      reportInFlight(ctx, `${victim} server, recovery ${recovery ? 'on' : 'off'}`, rounds);
    }
  }
}

const RECOVERY_DEADLINE_MS = 10_000;
const RECOVERY_ROUNDS = benchRounds(3);
const WORK_MS = 20;
const ACTING = 'bench_switch';

/** A tool that acts: not idempotent, so a lost call of it is never sent again. */
const switchTool = defineTool({
  name: ACTING,
  version: '1.0.0',
  description: 'Failover benchmark: a tool that acts (not idempotent).',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.object({ n: z.number() }),
  output: z.object({ n: z.number() }),
  maxConcurrency: 64,
  maxQueue: 256,
  handler: async (input) => {
    await pause(WORK_MS);
    return { n: input.n };
  },
});

/** The idempotent tool, with the same work per call. */
const slowEcho = defineTool({
  ...echoDeclaration(),
  handler: async (input: { n: number }) => {
    await pause(WORK_MS);
    return { n: input.n };
  },
});

interface InFlightFigures {
  longestMs: number;
  silentMs: number;
  inFlight: number;
  failed: Map<string, number>;
}

function reportInFlight(ctx: BenchContext, name: string, rounds: InFlightFigures[]): void {
  const median = (f: (r: InFlightFigures) => number) => percentile(rounds.map(f), 50);
  const max = (f: (r: InFlightFigures) => number) => Math.max(...rounds.map(f));
  ctx.figure(
    `${name}: calls in flight at the kill, median`,
    median((r) => r.inFlight),
    'calls',
  );
  ctx.figure(
    `${name}: longest call, median`,
    median((r) => r.longestMs),
    'ms',
  );
  ctx.figure(
    `${name}: longest call, max`,
    max((r) => r.longestMs),
    'ms',
  );
  ctx.figure(
    `${name}: longest time with no answer, median`,
    median((r) => r.silentMs),
    'ms',
  );
  ctx.figure(
    `${name}: longest time with no answer, max`,
    max((r) => r.silentMs),
    'ms',
  );
  const codes = new Set(rounds.flatMap((r) => [...r.failed.keys()]));
  for (const code of [...codes].sort()) {
    ctx.figure(
      `${name}: failed calls (${code}), max`,
      max((r) => r.failed.get(code) ?? 0),
      'calls',
    );
  }
}

async function inFlightRound(
  victim: 'brain' | 'worker',
  recovery: boolean,
): Promise<InFlightFigures> {
  const tools = [slowEcho, switchTool];
  return onCluster(
    'caesar-bench-inflight-',
    [tools, tools],
    (registry) =>
      registry.tool(TOOL)?.instances.length === 2 && registry.tool(ACTING)?.instances.length === 2,
    ({ cluster, brainNc, registry }) => {
      const dispatcher = createDispatcher({
        nc: brainNc,
        ...(recovery ? { recovery: { tools: registry } } : {}),
      });
      return killInFlight(dispatcher, cluster, victim === 'brain' ? C : A);
    },
  );
}

/** What a round runs on: the cluster, the brain's connection (on C) and registry, A's worker's. */
interface ClusterRound {
  readonly cluster: NatsCluster;
  readonly brainNc: NatsConnection;
  readonly workerNc: NatsConnection;
  readonly registry: Registry;
}

/**
 * A three-server cluster with a worker on A serving `hosts[0]` (and one on B serving
 * `hosts[1]`, when given), the brain's connection and registry on C; `body` runs once the
 * registry sees what `ready` asks, and everything is stopped and removed after it.
 */
async function onCluster<T>(
  dirPrefix: string,
  hosts: [ToolDefinition[], ToolDefinition[]?],
  ready: (registry: Registry) => boolean,
  body: (round: ClusterRound) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), dirPrefix));
  const cluster = await startNatsCluster({ size: 3, dir });
  const clients: NatsConnection[] = [];
  const workers: ToolWorker[] = [];
  const connect = async (node: number) => {
    const nc = await connectBus({ servers: [cluster.urls[node]!], name: `bench-${node}` });
    clients.push(nc);
    return nc;
  };
  try {
    const workerNc = await connect(A);
    workers.push(await serveTools(hosts[0], { nc: workerNc, host: 'a' }));
    if (hosts[1] !== undefined) {
      workers.push(await serveTools(hosts[1], { nc: await connect(1), host: 'b' }));
    }
    const brainNc = await connect(C);
    const registry = new Registry({ nc: brainNc, sweepIntervalMs: 1000 });
    await registry.start();
    try {
      await until(() => ready(registry));
      return await body({ cluster, brainNc, workerNc, registry });
    } finally {
      await registry.close();
    }
  } finally {
    for (const w of workers) await w.stop();
    await Promise.allSettled(clients.map((c) => c.close()));
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function killInFlight(
  dispatcher: Dispatcher,
  cluster: NatsCluster,
  victim: number,
): Promise<InFlightFigures> {
  const outcomes: Outcome[] = [];
  let stopped = false;
  let n = 0;
  const lanes = Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      const tool = lane % 2 === 0 ? TOOL : ACTING;
      while (!stopped) {
        const id = n++;
        const sentAt = performance.now();
        const reply = await dispatcher.dispatch(
          tool,
          { n: id },
          { decisionId: `d${id}`, deadline: Date.now() + RECOVERY_DEADLINE_MS },
        );
        const code = reply.success ? undefined : reply.error.code;
        outcomes.push({ sentAt, settledAt: performance.now(), code });
        if (code !== undefined) await pause(RETRY_PAUSE_MS);
      }
    }),
  );
  await pause(STEADY_MS);
  const server = cluster.nodes[victim]!.server;
  const killedAt = performance.now();
  const inFlight = LANES;
  process.kill(server.serverPid ?? server.pid, 'SIGKILL');
  // every call in flight at the kill has settled (by its deadline at worst), and new ones flow
  await until(
    () =>
      outcomes.filter((x) => x.sentAt < killedAt && x.settledAt > killedAt).length >= inFlight &&
      outcomes.some((x) => x.sentAt > killedAt && x.code === undefined),
    RECOVERY_DEADLINE_MS + 10_000,
  );
  await pause(500);
  stopped = true;
  await lanes;
  const settled = outcomes
    .map((x) => x.settledAt)
    .filter((t) => t > killedAt)
    .sort((a, b) => a - b);
  let silentMs = 0;
  let last = killedAt;
  for (const t of settled) {
    silentMs = Math.max(silentMs, t - last);
    last = t;
  }
  const failed = new Map<string, number>();
  for (const f of outcomes) if (f.code) failed.set(f.code, (failed.get(f.code) ?? 0) + 1);
  return {
    longestMs: Math.max(...outcomes.map((x) => x.settledAt - x.sentAt)),
    silentMs,
    inFlight,
    failed,
  };
}

function report(ctx: BenchContext, scenario: Scenario, rounds: RoundFigures[]): void {
  const median = (f: (r: RoundFigures) => number) => percentile(rounds.map(f), 50);
  const max = (f: (r: RoundFigures) => number) => Math.max(...rounds.map(f));
  const who = scenario === 'brain' ? 'brain' : 'worker';
  ctx.figure(
    `${scenario}: ${who} reconnected, median`,
    median((r) => r.reconnectMs),
    'ms',
  );
  ctx.figure(
    `${scenario}: new call succeeds again, median`,
    median((r) => r.probeOkMs),
    'ms',
  );
  ctx.figure(
    `${scenario}: new call succeeds again, max`,
    max((r) => r.probeOkMs),
    'ms',
  );
  ctx.figure(
    `${scenario}: lanes' first success, median`,
    median((r) => r.firstOkMs),
    'ms',
  );
  ctx.figure(
    `${scenario}: lanes' first success, max`,
    max((r) => r.firstOkMs),
    'ms',
  );
  ctx.figure(
    `${scenario}: last failed call ended, median`,
    median((r) => r.lastFailMs),
    'ms',
  );
  const codes = new Set(rounds.flatMap((r) => [...r.failed.keys()]));
  if (codes.size === 0) ctx.figure(`${scenario}: failed calls per round`, 0, 'calls');
  for (const code of [...codes].sort()) {
    const n = (r: RoundFigures) => r.failed.get(code) ?? 0;
    ctx.figure(`${scenario}: failed calls (${code}), median`, median(n), 'calls');
    ctx.figure(`${scenario}: failed calls (${code}), max`, max(n), 'calls');
  }
}

async function round(scenario: Scenario): Promise<RoundFigures> {
  const replica = scenario === 'worker+replica';
  return onCluster(
    'caesar-bench-failover-',
    replica ? [[echoTool], [echoTool]] : [[echoTool]],
    (registry) => registry.tool(TOOL)?.instances.length === (replica ? 2 : 1),
    ({ cluster, brainNc, workerNc }) =>
      killUnderLoad(createDispatcher({ nc: brainNc }), cluster, scenario === 'brain' ? C : A, {
        lost: scenario === 'brain' ? brainNc : workerNc,
      }),
  );
}

async function killUnderLoad(
  dispatcher: Dispatcher,
  cluster: NatsCluster,
  victim: number,
  o: { lost: NatsConnection },
): Promise<RoundFigures> {
  const outcomes: Outcome[] = [];
  let stopped = false;
  let n = 0;
  const probes: Outcome[] = [];
  const probe = (async () => {
    while (!stopped) {
      const sentAt = performance.now();
      void dispatcher
        .dispatch(
          TOOL,
          { n: -1 },
          { decisionId: 'probe', deadline: Date.now() + PROBE_DEADLINE_MS },
        )
        .then((reply) => {
          const code = reply.success ? undefined : reply.error.code;
          probes.push({ sentAt, settledAt: performance.now(), code });
        });
      await pause(PROBE_EVERY_MS);
    }
  })();
  const lanes = Promise.all(
    Array.from({ length: LANES }, async () => {
      while (!stopped) {
        const id = n++;
        const sentAt = performance.now();
        const reply = await dispatcher.dispatch(
          TOOL,
          { n: id },
          { decisionId: `d${id}`, deadline: Date.now() + DEADLINE_MS },
        );
        const code = reply.success ? undefined : reply.error.code;
        outcomes.push({ sentAt, settledAt: performance.now(), code });
        if (code !== undefined) await pause(RETRY_PAUSE_MS);
      }
    }),
  );
  await pause(STEADY_MS);
  const reconnected = nextReconnect(o.lost);
  const server = cluster.nodes[victim]!.server;
  const killedAt = performance.now();
  process.kill(server.serverPid ?? server.pid, 'SIGKILL');
  const reconnectedAt = await reconnected;
  await until(() => outcomes.some((x) => x.sentAt > killedAt && x.code === undefined), 30_000);
  // let every call in flight at the kill reach its deadline, then some more
  await pause(DEADLINE_MS + 500);
  stopped = true;
  await Promise.all([lanes, probe]);
  await pause(PROBE_DEADLINE_MS + 300);
  const firstOkOf = (list: Outcome[]) =>
    list
      .filter((x) => x.sentAt > killedAt && x.code === undefined)
      .reduce((t, x) => Math.min(t, x.settledAt), Infinity);

  const failures = outcomes.filter((x) => x.code !== undefined);
  const failed = new Map<string, number>();
  for (const f of failures) failed.set(f.code!, (failed.get(f.code!) ?? 0) + 1);
  const lastFail = failures.reduce((t, x) => Math.max(t, x.settledAt), killedAt);
  return {
    reconnectMs: reconnectedAt - killedAt,
    probeOkMs: firstOkOf(probes) - killedAt,
    firstOkMs: firstOkOf(outcomes) - killedAt,
    lastFailMs: lastFail - killedAt,
    failed,
  };
}

/** performance.now() at the connection's next reconnect. */
async function nextReconnect(nc: NatsConnection): Promise<number> {
  for await (const s of nc.status()) if (s.type === 'reconnect') return performance.now();
  throw new Error('the connection closed instead of reconnecting');
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const limit = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > limit) throw new Error('failover bench: timed out');
    await pause(5);
  }
}
