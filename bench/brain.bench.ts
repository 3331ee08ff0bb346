/**
 * The governed HTTP path against the same calculator called directly. Governed:
 * `POST /v1/tools/calculator/invoke` through the brain (bearer auth, request schema, policy,
 * input schema, `tool.called` made durable, NATS dispatch, output schema, `tool.result` made
 * durable). Direct: the brain's own dispatcher sending the same call to the same calculator
 * worker process over NATS, with no HTTP, policy or audit log. Both at concurrency 32
 * (throughput) and 1 (p50 latency), alternating round by round; each figure is the median
 * round. Also the cost of one durable SQLite commit in the brain's data directory, so the c=1
 * gap reads against the two fsyncs the design requires; the same c=1 dispatch between two
 * raw durable commits on the dispatching thread, and between a `tool.called` and a
 * `tool.result` row appended to an audit log of the brain's own kind (writer thread, hash
 * chain, durable commits), so the gap splits into what the commits cost composed with the
 * dispatch, what the audit log adds to them, and what the HTTP and the gateway add; and the
 * brain's resident memory.
 *
 * Every process is real and apart: nats-server, `caesar legion serve-tool calculator`,
 * `caesar brain`, and one load generator per path (bench/wrk.ts: wrk for HTTP; bench/load.ts:
 * the dispatcher for NATS), so neither path is measured through a saturated client.
 *
 * Issue 30's baseline, in the same rounds: a bare MCP SDK server (bench/mcp-bare.ts,
 * stateless Streamable HTTP, no auth, policy or audit) answering `tools/call` for the same
 * arithmetic, driven by the same wrk at the same concurrency. The brain's own `POST /mcp`
 * against it is bench/mcp.bench.ts.
 *
 *   npm run bench -- brain
 *   BENCH_BRAIN_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench -- brain
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startNatsServer } from '../src/bus/index.js';
import { replyMac, verifyReplyMac } from '../src/protocol/reply-mac.js';
import {
  brainTimes,
  cpuPerCall,
  durableCommitMicros,
  mainThread,
  meanBetween,
  probeHealthz,
  rssMiB,
  type BrainTimes,
  type Pids,
} from './brain-probes.js';
import { benchRounds, benchSize, percentile, type BenchContext } from './harness.js';
import { CALC_INPUT, CALC_TOOL, type LoadCommand, type LoadResult } from './load.js';
import { mcpInitialize } from './mcp-bare.js';
import { LoadGenerator, spawnUntil, startGovernedStack, stop } from './processes.js';
import { checked, runWrk, type WrkTarget } from './wrk.js';
const CONCURRENCY = 32;
const THROUGHPUT_CALLS = benchSize(8_000, 200);
const LATENCY_CALLS = benchSize(1_500, 20);
/** Seconds of each wrk run: throughput, latency, the half-rate phase. */
const THROUGHPUT_S = benchSize(4, 1);
const LATENCY_S = benchSize(3, 1);
const HALF_S = benchSize(3, 1);
const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: CALC_TOOL, arguments: CALC_INPUT },
});
const WARMUP: LoadCommand = { concurrency: CONCURRENCY, calls: benchSize(2_000, 100) };
/** Rounds per figure; `BENCH_ROUNDS` shortens a profiling run. */
const ROUNDS = benchRounds(5);

interface Rounds {
  governed: LoadResult[];
  direct: LoadResult[];
  /** The bare MCP SDK server at c=32, and its CPU per call. */
  bare: LoadResult[];
  cpuBare: number[];
  governed1: LoadResult[];
  direct1: LoadResult[];
  after1: LoadResult[];
  /** c=1: the dispatch between a `tool.called` and a `tool.result` row of a real audit log. */
  audited1: LoadResult[];
  /** c=1: the dispatch between two durable raw commits on the dispatching thread. */
  around1: LoadResult[];
  /** One durable audit-schema row; `fsyncPage` one page. */
  fsync: number[];
  fsyncPage: number[];
  /** The brain's own mean timings during the concurrency-1 and -32 phases. */
  inside1: Record<keyof BrainTimes, number>[];
  inside32: Record<keyof BrainTimes, number>[];
  /** CPU per call of each process during the concurrency-32 phases. */
  cpuGoverned: Record<keyof Pids, number>[];
  cpuDirect: Record<keyof Pids, number>[];
  /** p99 of `GET /healthz`, microseconds: the brain idle, and while governed c=32 runs. */
  healthzIdle: number[];
  healthz: number[];
  /** `GET /healthz` p99 and the governed calls while the brain serves half its c=32 rate. */
  healthzHalf: number[];
  halfRate: LoadResult[];
}

export async function run(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-bench-brain-'));
  await using server = await startNatsServer();
  const children: ChildProcess[] = [];
  try {
    // grants on, as an operator runs it: the brain MACs them for the worker (ADR 0052, 0108)
    const nodeArgs = (process.env.BENCH_BRAIN_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const stack = await startGovernedStack(server.url, dir, true, nodeArgs);
    children.push(stack.calculator, stack.brain);
    const { url, token } = stack;
    const brain = { child: stack.brain };
    const calculator = stack.calculator;
    await sleep(benchSize(2000, 200));
    const idleStart = await rssMiB(brain.child.pid!);

    const pids: Pids = {
      brain: brain.child.pid!,
      brainMain: mainThread(brain.child.pid!),
      calculator: calculator.pid!,
      nats: server.serverPid ?? server.pid,
    };
    const bare = await spawnUntil(
      [fileURLToPath(new URL('./mcp-bare.js', import.meta.url))],
      /^ready /,
    );
    children.push(bare.child);
    const bareUrl = bare.line.split(' ')[1] ?? '';
    await mcpInitialize(bareUrl);
    const bareTarget: WrkTarget = {
      url: bareUrl,
      body: MCP_CALL,
      expect: '\\"result\\":\\"391\\"',
    };
    const governedTarget: WrkTarget = {
      url: `${url}/v1/tools/${CALC_TOOL}/invoke`,
      body: JSON.stringify({ input: CALC_INPUT }),
      expect: '"outcome":"ok"',
      authorization: `Bearer ${token}`,
    };
    const http = {
      run: async (cmd: { concurrency: number; seconds: number; rate?: number }) =>
        checked(await runWrk(governedTarget, cmd)),
    };
    // the direct path grants with the brain's key and registry, as the brain's dispatcher does
    const direct = await LoadGenerator.start(['direct', server.url, stack.seedFile ?? '']);
    children.push(direct.child);
    await direct.run(WARMUP);
    await http.run({ concurrency: CONCURRENCY, seconds: 2 });
    checked(await runWrk(bareTarget, { concurrency: CONCURRENCY, seconds: 2 }));
    const r: Rounds = {
      governed: [],
      direct: [],
      bare: [],
      cpuBare: [],
      governed1: [],
      direct1: [],
      after1: [],
      audited1: [],
      around1: [],
      fsync: [],
      fsyncPage: [],
      inside1: [],
      inside32: [],
      cpuGoverned: [],
      cpuDirect: [],
      healthzIdle: [],
      healthz: [],
      healthzHalf: [],
      halfRate: [],
    };
    const c32 = { concurrency: CONCURRENCY, calls: THROUGHPUT_CALLS };
    const c1 = { concurrency: 1, calls: LATENCY_CALLS };
    const w32 = { concurrency: CONCURRENCY, seconds: THROUGHPUT_S };
    const bareCpu = { ...pids, bare: bare.child.pid! };
    for (let round = 0; round < ROUNDS; round++) {
      const d32 = await cpuPerCall(pids, c32.calls, () => direct.run(c32));
      r.direct.push(d32.result);
      r.cpuDirect.push(d32.cpu);
      const idleProbe = probeHealthz(url);
      await sleep(benchSize(500, 50));
      r.healthzIdle.push(percentile(await idleProbe.stop(), 99));
      const t0 = await brainTimes(url, token);
      const probe = probeHealthz(url);
      const g32 = await cpuPerCallOf(pids, () => http.run(w32));
      r.healthz.push(percentile(await probe.stop(), 99));
      const b32 = await cpuPerCallOf(bareCpu, async () => checked(await runWrk(bareTarget, w32)));
      r.bare.push(b32.result);
      r.cpuBare.push(b32.cpu.bare);
      // the same load at half the rate the brain just sustained: the log commits all along,
      // but the brain has CPU to spare, so a stall would be the log's
      const half = Math.max(50, Math.round(g32.result.rate / 2));
      const halfProbe = probeHealthz(url);
      r.halfRate.push(await http.run({ concurrency: CONCURRENCY, seconds: HALF_S, rate: half }));
      r.healthzHalf.push(percentile(await halfProbe.stop(), 99));
      r.governed.push(g32.result);
      r.cpuGoverned.push(g32.cpu);
      const t1 = await brainTimes(url, token);
      r.direct1.push(await direct.run(c1));
      r.after1.push(await direct.run({ ...c1, commitBefore: dir }));
      r.audited1.push(await direct.run({ ...c1, audited: dir }));
      r.around1.push(await direct.run({ ...c1, commitAround: dir }));
      const t2 = await brainTimes(url, token);
      r.governed1.push(await http.run({ concurrency: 1, seconds: LATENCY_S }));
      const t3 = await brainTimes(url, token);
      r.inside32.push(meanBetween(t0, t1));
      r.inside1.push(meanBetween(t2, t3));
      r.fsyncPage.push(await durableCommitMicros(dir, 'page'));
      r.fsync.push(await durableCommitMicros(dir, 'audit'));
    }
    await sleep(benchSize(3000, 300));
    const idleAfter = await rssMiB(brain.child.pid!);
    const calls = `${ROUNDS} rounds of`;
    report(ctx, r, { idleStart, idleAfter, calls });
  } finally {
    for (const child of children.reverse()) await stop(child);
    await rm(dir, { recursive: true, force: true });
  }
}

function report(
  ctx: BenchContext,
  r: Rounds,
  rss: { idleStart: number; idleAfter: number; calls: string },
): void {
  reportIssue30(ctx, r);
  const median = (xs: number[]) => percentile([...xs], 50);
  const m = (xs: LoadResult[], key: keyof LoadResult) => median(xs.map((x) => x[key]));
  ctx.section(
    `Brain: governed POST /v1/tools/calculator/invoke (wrk) vs the same calculator ` +
      `called directly by the dispatcher over NATS, median of ${ROUNDS} rounds`,
  );
  const direct = m(r.direct, 'rate');
  ctx.figure(`direct dispatch, concurrency ${CONCURRENCY}`, direct, 'calls/s');
  ctx.figure(`governed HTTP invoke, concurrency ${CONCURRENCY}`, m(r.governed, 'rate'), 'req/s', {
    baseline: direct,
    target: '>= 0.80x',
  });
  ctx.figure('direct dispatch p50, concurrency 1', m(r.direct1, 'p50'), 'us');
  ctx.figure('direct dispatch p50, c=1, each right after an fsync', m(r.after1, 'p50'), 'us');
  ctx.figure('one durable SQLite commit of one page p50', median(r.fsyncPage), 'us');
  ctx.figure('one durable commit of one audit row, raw SQL (fsync) p50', median(r.fsync), 'us');
  const budget = m(r.direct1, 'p50') + 2 * median(r.fsync);
  ctx.figure('direct p50 + 2 fsync', budget, 'us');
  ctx.figure('governed HTTP p50, concurrency 1', m(r.governed1, 'p50'), 'us', {
    baseline: budget,
    target: '<= 1.00x',
  });
  const afterBudget = m(r.after1, 'p50') + 2 * median(r.fsync);
  ctx.figure('direct p50 right after an fsync + 2 fsync', afterBudget, 'us');
  ctx.figure('governed HTTP p50, c=1, against that', m(r.governed1, 'p50'), 'us', {
    baseline: afterBudget,
  });
  const around = m(r.around1, 'p50');
  ctx.figure('direct dispatch between two raw durable commits, p50, c=1', around, 'us', {
    baseline: budget,
  });
  const audited = m(r.audited1, 'p50');
  ctx.figure('direct dispatch between two audit-log appends, p50, c=1', audited, 'us', {
    baseline: around,
  });
  ctx.figure('governed HTTP p50, c=1, against the audited dispatch', m(r.governed1, 'p50'), 'us', {
    baseline: audited,
  });
  ctx.figure(`governed HTTP p99, concurrency ${CONCURRENCY}`, m(r.governed, 'p99'), 'us');
  ctx.figure(`direct p99, concurrency ${CONCURRENCY}`, m(r.direct, 'p99'), 'us');
  ctx.figure('GET /healthz p99, brain idle', median(r.healthzIdle), 'us');
  ctx.figure(`GET /healthz p99 while governed c=${CONCURRENCY} runs`, median(r.healthz), 'us', {
    baseline: median(r.healthzIdle),
  });
  ctx.figure('governed HTTP invoke at half that rate (open loop)', m(r.halfRate, 'rate'), 'req/s');
  ctx.figure('  its p99', m(r.halfRate, 'p99'), 'us');
  ctx.figure('GET /healthz p99 meanwhile', median(r.healthzHalf), 'us', {
    baseline: median(r.healthzIdle),
    target: '< 5,000 us',
  });
  for (const [c, inside] of [
    [1, r.inside1],
    [CONCURRENCY, r.inside32],
  ] as const) {
    const mi = (k: keyof BrainTimes) => median(inside.map((x) => x[k]));
    ctx.figure(`inside the brain, c=${c}: HTTP request, mean`, mi('http'), 'us');
    ctx.figure(`inside the brain, c=${c}: gateway call, mean`, mi('call'), 'us');
    ctx.figure(`inside the brain, c=${c}: one audit append, mean`, mi('audit'), 'us');
    ctx.figure(`inside the brain, c=${c}: dispatch, mean`, mi('dispatch'), 'us');
  }
  const cpu = (xs: Record<keyof Pids, number>[], k: keyof Pids) => median(xs.map((x) => x[k]));
  ctx.figure(`CPU per call, c=${CONCURRENCY}, governed: wrk`, m(r.governed, 'cpuPerCall'), 'us');
  ctx.figure(`CPU per call, c=${CONCURRENCY}, governed: brain`, cpu(r.cpuGoverned, 'brain'), 'us');
  for (const [name, xs] of [
    ['governed', r.cpuGoverned],
    ['direct', r.cpuDirect],
  ] as const) {
    ctx.figure(`CPU per call, c=${CONCURRENCY}, ${name}: calculator`, cpu(xs, 'calculator'), 'us');
    ctx.figure(`CPU per call, c=${CONCURRENCY}, ${name}: nats-server`, cpu(xs, 'nats'), 'us');
  }
  ctx.figure(`CPU per call, c=${CONCURRENCY}, direct: dispatcher`, m(r.direct, 'cpuPerCall'), 'us');
  ctx.figure('brain RSS, idle after start', rss.idleStart, 'MiB');
  ctx.figure(`brain RSS, idle after ${rss.calls} calls`, rss.idleAfter, 'MiB');
}

/** Issue 30, scope 6: the three targets, read from the same rounds. */
function reportIssue30(ctx: BenchContext, r: Rounds): void {
  const median = (xs: number[]) => percentile([...xs], 50);
  const m = (xs: LoadResult[], key: keyof LoadResult) => median(xs.map((x) => x[key]));
  ctx.section(
    `Issue 30: the governed call (grants + bound replies), wrk, median of ${ROUNDS} rounds`,
  );
  const brainCpu = median(r.cpuGoverned.map((x) => x.brain));
  ctx.figure('brain CPU per governed call, c=32', brainCpu, 'us', { target: '<= 120 us' });
  const mainCpu = median(r.cpuGoverned.map((x) => x.brainMain));
  ctx.figure('  its main thread (the rest: the audit writer, GC helpers)', mainCpu, 'us');
  const bare = m(r.bare, 'rate');
  ctx.figure(`bare MCP SDK server (stateless), c=${CONCURRENCY}`, bare, 'req/s');
  ctx.figure(`  its CPU per call`, median(r.cpuBare), 'us');
  ctx.figure(`governed HTTP invoke, c=${CONCURRENCY}`, m(r.governed, 'rate'), 'req/s', {
    baseline: bare,
    target: '>= 2.50x',
  });
  const budget = m(r.direct1, 'p50') + 2 * median(r.fsync);
  ctx.figure('direct dispatch p50, c=1, + 2 fsync', budget, 'us');
  ctx.figure('governed HTTP p50, c=1', m(r.governed1, 'p50'), 'us', {
    baseline: budget,
    target: '<= 1.00x',
  });
  const cost = signVerifyMicros();
  ctx.figure('one Ed25519 sign (a v1 grant), CPU (2,000-iteration loop)', cost.sign, 'us');
  ctx.figure('one Ed25519 verify (a v1 reply), CPU (2,000-iteration loop)', cost.verify, 'us');
  ctx.figure('one HMAC-SHA256 (a v2 grant entry or reply check), CPU', cost.mac, 'us');
  // since ADR 0108 the brain MACs its grants: one HMAC per listed instance (one here)
  ctx.figure(
    'brain CPU per call less the grant MAC and the reply MAC check',
    brainCpu - 2 * cost.mac,
    'us',
    {
      target: '<= 300 us (proposed, ADR 0085)',
    },
  );
}

/**
 * The brain's per-call crypto alone: a grant signature and a reply check as v1 (Ed25519 sign
 * and verify, what a brain does for workers from before ADR 0105 and 0108), and one
 * HMAC-SHA256 over the same ~200 bytes, what a v2 grant entry and a v2 reply check each cost,
 * as CPU time (not wall time), so other processes on a shared machine inflate it less.
 */
function signVerifyMicros(): { sign: number; verify: number; mac: number } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const msg = Buffer.from(
    JSON.stringify(['caesar-grant/v1', CALC_TOOL, 'a'.repeat(64), 'x'.repeat(26), Date.now()]),
  );
  const n = 2_000;
  const cpu = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / n;
  };
  let sig = sign(null, msg, privateKey);
  let t = process.cpuUsage();
  for (let i = 0; i < n; i++) sig = sign(null, msg, privateKey);
  const signUs = cpu(t);
  t = process.cpuUsage();
  for (let i = 0; i < n; i++) verify(null, msg, publicKey, sig);
  const verifyUs = cpu(t);
  const macKey = randomBytes(32);
  const mac = replyMac(macKey, msg);
  t = process.cpuUsage();
  for (let i = 0; i < n; i++) verifyReplyMac(mac, msg, macKey);
  return { sign: signUs, verify: verifyUs, mac: cpu(t) };
}

/** CPU per call of each process over a wrk run, by the requests it counted. */
async function cpuPerCallOf<K extends string>(
  pids: Record<K, number | string>,
  fn: () => Promise<LoadResult & { calls: number }>,
): Promise<{ result: LoadResult; cpu: Record<K, number> }> {
  const { result, cpu } = await cpuPerCall(pids, 1, fn);
  for (const k of Object.keys(cpu) as K[]) cpu[k] /= result.calls;
  return { result, cpu };
}
