/**
 * Calculator throughput (issue 13, target 6): the brain's own dispatcher calling a real
 * `caesar legion serve-tool calculator` over a real nats-server, against the SDK echo tool
 * on the same dispatcher and the same nats-server, in the same run. Throughput at
 * concurrency 32 over a mix of ordinary expressions (alternating rounds, median round), p50
 * at concurrency 1 (calls interleaved one by one), and the CPU each process spends per call
 * (/proc/<pid>/stat, every thread of the process).
 *
 * The calculator runs with `warm_threads: 1` (`BENCH_CALC_WARM_THREADS` to change), so the
 * first thread's mathjs load is not in the figure; a second thread starts on demand under
 * load, as it would for an operator. `BENCH_CALC_NODE_ARGS` passes flags to the calculator
 * process (`--cpu-prof --cpu-prof-dir=/tmp/prof`), `BENCH_ROUNDS` shortens a run.
 *
 *   npm run bench -- calculator
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { createDispatcher, type Dispatcher } from '../src/brain/dispatch/index.js';
import { connectBus, startNatsServer } from '../src/bus/index.js';
import { defineTool, serveTools } from '../src/legion/index.js';
import { silentLogger } from '../src/log/index.js';
import { cpuPerCall } from './brain-probes.js';
import {
  benchRounds,
  benchSize,
  percentile,
  throughput,
  type BenchContext,
  type Call,
} from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const ECHO_TOOL = 'bench_echo';
const CALC_TOOL = 'calculator';
/**
 * Ordinary questions: arithmetic, functions, constants, a unit conversion. Each call puts
 * its own number in, so no text repeats within a run and nothing answers from a cache.
 */
const EXPRESSIONS: readonly ((n: number) => string)[] = [
  (n) => `${n} * 23`,
  (n) => `sqrt(${n}) * 3`,
  (n) => `2^10 + ${n} % 3`,
  (n) => `(${n}+2)/3 * 4.5`,
  (n) => `${n} km to miles`,
  (n) => `sin(pi / ${n})`,
  (n) => `log(${n}, 10)`,
  (n) => `round(${n}.14159, 2)`,
];
const CONCURRENCY = 32;
const THROUGHPUT_CALLS = benchSize(8_000, 200);
const LATENCY_CALLS = benchSize(400, 20);
const WARMUP_CALLS = benchSize(4_000, 100);
const ROUNDS = benchRounds(5);
const TARGET = 15_000;
const TIMEOUT_MS = 10_000;

const echoTool = defineTool({
  name: ECHO_TOOL,
  version: '1.0.0',
  description: 'Benchmark echo: returns its expression.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.object({ expression: z.string() }),
  output: z.object({ expression: z.string() }),
  maxConcurrency: 256,
  maxQueue: 1024,
  handler: (input) => ({ expression: input.expression }),
});

/** Child-process side: serve the SDK echo tool until stdin closes. */
async function serveEcho(url: string): Promise<void> {
  const nc = await connectBus({ servers: url, name: 'bench-echo' });
  const worker = await serveTools([echoTool], { nc, logger: silentLogger(), host: 'bench' });
  process.stdin.on('close', () => {
    void worker.stop().finally(() => process.exit(0));
  });
  process.stdin.resume();
  process.stdout.write('ready\n');
}

function startEcho(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--echo', url], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`echo child exited (${code})`)));
    createInterface({ input: child.stdout }).once('line', () => resolve(child));
  });
}

/** `caesar legion serve-tool calculator` at the default log level, as an operator runs it. */
function startCalculator(url: string): ChildProcess {
  const nodeArgs = (process.env.BENCH_CALC_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawn(
    process.execPath,
    [...nodeArgs, CLI, 'legion', 'serve-tool', CALC_TOOL, '--nats-url', url],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: {
        ...process.env,
        CAESAR_TOOLS__CALCULATOR__WARM_THREADS: process.env.BENCH_CALC_WARM_THREADS ?? '1',
        // the worker's own throughput: grants (a verification per call) are bench/grants
        CAESAR_WORKER__REQUIRE_GRANT: 'false',
      },
    },
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  child.stdin?.end();
  await exited;
}

/** A call that cycles through EXPRESSIONS and fails loudly on anything but success. */
function caller(dispatcher: Dispatcher, tool: string): Call {
  let i = 0;
  return async () => {
    const n = i++;
    const expression = EXPRESSIONS[n % EXPRESSIONS.length]!(1 + Math.floor(n / 8));
    const reply = await dispatcher.dispatch(
      tool,
      { expression },
      { decisionId: 'bench-decision', deadline: Date.now() + TIMEOUT_MS },
    );
    if (!reply.success) {
      throw new Error(
        `${tool} failed on ${expression}: ${reply.error.code} ${reply.error.message}`,
      );
    }
  };
}

async function waitUntilServed(call: Call): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await call();
      return;
    } catch (err) {
      if (i > 200) throw err;
      await sleep(100);
    }
  }
}

/** p50 latencies (us) of `calls` made one at a time, alternating between them. */
async function interleaved(calls: Call[], n: number): Promise<number[][]> {
  const out = calls.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < calls.length; k++) {
      const j = i % 2 === 0 ? k : calls.length - 1 - k;
      const t = performance.now();
      await calls[j]!();
      out[j]!.push((performance.now() - t) * 1000);
    }
  }
  return out;
}

const median = (xs: number[]) => percentile([...xs], 50);

export async function run(ctx: BenchContext): Promise<void> {
  await using server = await startNatsServer();
  const calculator = startCalculator(server.url);
  let echo: ChildProcess | undefined;
  const nc = await connectBus({ servers: server.url, name: 'bench-caller' });
  try {
    echo = await startEcho(server.url);
    const dispatcher = createDispatcher({ nc });
    const calc = caller(dispatcher, CALC_TOOL);
    const sdkEcho = caller(dispatcher, ECHO_TOOL);
    await waitUntilServed(calc);
    const pids = {
      calculator: calculator.pid!,
      echo: echo.pid!,
      nats: server.serverPid ?? server.pid,
    };
    for (const call of [sdkEcho, calc]) await throughput(call, WARMUP_CALLS, CONCURRENCY);

    const rate = { echo: [] as number[], calc: [] as number[] };
    const cpu = { echo: [] as number[], calc: [] as number[], nats: [] as number[] };
    const caller32 = [] as number[];
    const lat = { echo: [] as number[], calc: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const e = await cpuPerCall(pids, THROUGHPUT_CALLS, () =>
        throughput(sdkEcho, THROUGHPUT_CALLS, CONCURRENCY),
      );
      rate.echo.push(e.result);
      cpu.echo.push(e.cpu.echo);
      const own = process.cpuUsage();
      const c = await cpuPerCall(pids, THROUGHPUT_CALLS, () =>
        throughput(calc, THROUGHPUT_CALLS, CONCURRENCY),
      );
      const used = process.cpuUsage(own);
      caller32.push((used.user + used.system) / THROUGHPUT_CALLS);
      rate.calc.push(c.result);
      cpu.calc.push(c.cpu.calculator);
      cpu.nats.push(c.cpu.nats);
      const [e1, c1] = (await interleaved([sdkEcho, calc], LATENCY_CALLS)) as [number[], number[]];
      lat.echo.push(...e1);
      lat.calc.push(...c1);
    }

    ctx.section(
      `Calculator: direct dispatch (createDispatcher -> caesar legion serve-tool calculator, ` +
        `warm_threads ${process.env.BENCH_CALC_WARM_THREADS ?? '1'}) vs the SDK echo tool, ` +
        `${EXPRESSIONS.length} kinds of expression in turn, median of ${ROUNDS} alternating rounds`,
    );
    const echoRate = median(rate.echo);
    const calcRate = median(rate.calc);
    ctx.figure(`SDK echo, concurrency ${CONCURRENCY}`, echoRate, 'calls/s');
    ctx.figure(`calculator, concurrency ${CONCURRENCY}`, calcRate, 'calls/s', {
      baseline: echoRate,
    });
    ctx.figure(`calculator against the target, concurrency ${CONCURRENCY}`, calcRate, 'calls/s', {
      baseline: TARGET,
      target: `>= ${TARGET.toLocaleString('en-US')} calls/s (1.00x)`,
    });
    ctx.figure('SDK echo p50, concurrency 1', percentile(lat.echo, 50), 'us');
    ctx.figure('calculator p50, concurrency 1', percentile(lat.calc, 50), 'us', {
      baseline: percentile(lat.echo, 50),
    });
    ctx.figure('calculator p99, concurrency 1', percentile(lat.calc, 99), 'us');
    ctx.figure(`CPU per call, c=${CONCURRENCY}: calculator process`, median(cpu.calc), 'us');
    ctx.figure(`CPU per call, c=${CONCURRENCY}: echo worker process`, median(cpu.echo), 'us');
    ctx.figure(`CPU per call, c=${CONCURRENCY}, calculator: nats-server`, median(cpu.nats), 'us');
    ctx.figure(`CPU per call, c=${CONCURRENCY}, calculator: dispatcher`, median(caller32), 'us');
  } finally {
    await nc.close();
    if (echo) await stop(echo);
    await stop(calculator);
  }
}

if (process.argv[2] === '--echo' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await serveEcho(process.argv[3] ?? '');
}
