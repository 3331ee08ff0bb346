/**
 * Issue 32: a governed MCP `tools/call` through the brain's `POST /mcp`, against the bare MCP
 * SDK server doing the same arithmetic in one process (bench/mcp-bare.ts: stateless
 * Streamable HTTP, no auth, policy, audit or bus), both driven by the same wrk at c=32 in the
 * same rounds, alternating. Three governed paths: `/mcp` stateless (a server and a transport
 * per request, as `curl` would call it), `/mcp` in a session (as an MCP client calls it after
 * `initialize`: answers on a server-sent stream, ADR 0094), and the REST invoke the same
 * gateway answers, so the transport's share reads apart from the governance's. Each figure is
 * the median round; CPU per call is the brain's (or the bare server's) own.
 *
 *   npm run bench -- mcp
 *
 * To profile the brain on one path: `BENCH_BRAIN_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'
 * BENCH_MCP_PATHS=session BENCH_ROUNDS=2 npm run bench -- mcp`.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startNatsServer } from '../src/bus/index.js';
import { cpuPerCall } from './brain-probes.js';
import { benchRounds, benchSize, percentile, type BenchContext } from './harness.js';
import { CALC_INPUT, CALC_TOOL, type LoadResult } from './load.js';
import { mcpInitialize } from './mcp-bare.js';
import { spawnUntil, startGovernedStack, stop } from './processes.js';
import { checked, runWrk, type WrkTarget } from './wrk.js';

const CONCURRENCY = 32;
const SECONDS = benchSize(4, 1);
/** Rounds per figure; `BENCH_ROUNDS` shortens a run. */
const ROUNDS = benchRounds(5);
const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: CALC_TOOL, arguments: CALC_INPUT },
});
/** Every answer of the four paths carries the calculator's result in this form. */
const RESULT_MARK = '\\"result\\":\\"391\\"';

type Path = 'bare' | 'stateless' | 'session' | 'rest';
const ALL_PATHS: readonly Path[] = ['bare', 'stateless', 'session', 'rest'];
/** `BENCH_MCP_PATHS` (comma-separated) measures only those paths, for a profiling run. */
const PATHS = (process.env.BENCH_MCP_PATHS?.split(',') ?? ALL_PATHS).filter((p): p is Path =>
  (ALL_PATHS as readonly string[]).includes(p),
);

export async function run(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-bench-mcp-'));
  await using server = await startNatsServer();
  const children: ChildProcess[] = [];
  try {
    // grants on, as an operator runs it: the brain signs, the worker verifies (ADR 0052)
    const nodeArgs = (process.env.BENCH_BRAIN_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const stack = await startGovernedStack(server.url, dir, true, nodeArgs);
    children.push(stack.calculator, stack.brain);
    const bare = await spawnUntil(
      [fileURLToPath(new URL('./mcp-bare.js', import.meta.url))],
      /^ready /,
    );
    children.push(bare.child);
    const bareUrl = bare.line.split(' ')[1] ?? '';
    const authorization = `Bearer ${stack.token}`;
    await mcpInitialize(bareUrl);
    const session = await mcpInitialize(`${stack.url}/mcp`, authorization);
    if (session === undefined) throw new Error("the brain's /mcp opened no session");
    const targets: Record<Path, WrkTarget> = {
      bare: { url: bareUrl, body: MCP_CALL, expect: RESULT_MARK },
      stateless: { url: `${stack.url}/mcp`, body: MCP_CALL, expect: RESULT_MARK, authorization },
      session: {
        url: `${stack.url}/mcp`,
        body: MCP_CALL,
        expect: RESULT_MARK,
        authorization,
        session,
      },
      rest: {
        url: `${stack.url}/v1/tools/${CALC_TOOL}/invoke`,
        body: JSON.stringify({ input: CALC_INPUT }),
        expect: '"result":"391"',
        authorization,
      },
    };
    const pidOf: Record<Path, number> = {
      bare: bare.child.pid!,
      stateless: stack.brain.pid!,
      session: stack.brain.pid!,
      rest: stack.brain.pid!,
    };
    await sleep(benchSize(1000, 100));
    for (const p of PATHS)
      checked(await runWrk(targets[p], { concurrency: CONCURRENCY, seconds: benchSize(2, 1) }));
    const rounds = Object.fromEntries(PATHS.map((p) => [p, [] as Measured[]])) as Record<
      Path,
      Measured[]
    >;
    for (let round = 0; round < ROUNDS; round++) {
      for (const p of PATHS) rounds[p].push(await measure(targets[p], pidOf[p]));
    }
    report(ctx, rounds);
  } finally {
    for (const child of children.reverse()) await stop(child);
    await rm(dir, { recursive: true, force: true });
  }
}

interface Measured {
  readonly result: LoadResult;
  /** CPU per call of the serving process (the brain, or the bare server), microseconds. */
  readonly cpu: number;
}

async function measure(target: WrkTarget, pid: number): Promise<Measured> {
  const { result, cpu } = await cpuPerCall({ server: pid }, 1, async () =>
    checked(await runWrk(target, { concurrency: CONCURRENCY, seconds: SECONDS })),
  );
  return { result, cpu: cpu.server / result.calls };
}

function report(ctx: BenchContext, r: Record<Path, Measured[]>): void {
  const median = (xs: number[]) => percentile([...xs], 50);
  const rate = (p: Path) => median(r[p].map((x) => x.result.rate));
  const cpu = (p: Path) => median(r[p].map((x) => x.cpu));
  const p99 = (p: Path) => median(r[p].map((x) => x.result.p99));
  ctx.section(
    `Issue 32: a governed MCP tools/call (grants on) against a bare MCP SDK server, ` +
      `wrk c=${CONCURRENCY}, median of ${ROUNDS} rounds`,
  );
  if (PATHS.length < ALL_PATHS.length) {
    // a profiling run of some paths: their own figures, no ratios
    for (const p of PATHS) {
      ctx.figure(`${p}`, rate(p), 'req/s');
      ctx.figure(`  CPU per call, ${p}`, cpu(p), 'us');
    }
    return;
  }
  ctx.figure('bare MCP SDK server (stateless), one process', rate('bare'), 'req/s');
  ctx.figure('  its CPU per call', cpu('bare'), 'us');
  ctx.figure('governed POST /mcp, stateless', rate('stateless'), 'req/s', {
    baseline: rate('bare'),
    target: '>= 2.00x (issue 32; ADR 0094)',
  });
  ctx.figure('governed POST /mcp, in a session', rate('session'), 'req/s', {
    baseline: rate('bare'),
    target: '>= 2.00x (issue 32; ADR 0094)',
  });
  ctx.figure('governed REST invoke, same gateway', rate('rest'), 'req/s', {
    baseline: rate('bare'),
  });
  ctx.figure('governed POST /mcp in a session, against REST', rate('session'), 'req/s', {
    baseline: rate('rest'),
    target: '>= 0.75x (proposed, ADR 0094)',
  });
  for (const p of ['stateless', 'session', 'rest'] as const) {
    ctx.figure(`brain CPU per call, ${p}`, cpu(p), 'us');
  }
  for (const p of PATHS) ctx.figure(`p99, ${p}`, p99(p), 'us');
}
