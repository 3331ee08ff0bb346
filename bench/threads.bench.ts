/**
 * Thread start (issue 30, ADR 0082): from the start call to the thread's `online` event, the
 * watchdog's thread as it started before (a `Worker` of an eval'd CommonJS source, built
 * here as the baseline) and as it starts now (`startThread` of the compiled
 * `watchdog-thread.js`), with the same heap limits; then a bare `new Worker(url)` against
 * `startThread(url)` of one empty module, for what the helper itself costs. Then a
 * calculator evaluation thread from start to loaded and warmed (what the first calculation
 * after an idle minute waits for), wall and CPU, from the compiled modules (before ADR 0104:
 * mathjs's 1,262 files) against the build's bundle (`eval-thread.bundle.js`). The two of each
 * pair alternate run by run, so a drifting machine moves both. Median of RUNS runs after
 * one warm-up (CALC_RUNS for the calculator's, which are slower).
 *
 *   npm run build && node dist/bench/run.js threads
 */
import { Worker } from 'node:worker_threads';
import { compiledScriptUrl, startThread } from '../src/process/index.js';
import { createEvaluator } from '../workers/calculator/evaluator.js';
import { benchSize, type BenchContext } from './harness.js';

const RUNS = benchSize(20, 2);
const CALC_RUNS = benchSize(7, 1);
const EVAL_THREAD = new URL('../workers/calculator/eval-thread.js', import.meta.url);
const LIMITS = { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1, stackSizeMb: 1 };
const WATCHDOG = new URL('../src/process/watchdog-thread.js', import.meta.url);
const EMPTY = new URL('data:text/javascript,');
/** What the watchdog ran before, in its shape: the loop that waits to be stopped. */
const EVAL_SOURCE = `
const { workerData } = require('node:worker_threads');
const { beat, pollMs } = workerData;
for (;;) { Atomics.wait(beat, 1, 0, pollMs); if (Atomics.load(beat, 1) !== 0) break; }
`;

function watchdogData() {
  return {
    beat: new Int32Array(new SharedArrayBuffer(8)),
    timeoutMs: 60_000,
    pollMs: 250,
    label: 'bench',
  };
}

/** ms from `start()` to the thread's `online` event; the thread is stopped after. */
async function onlineMs(start: () => Worker): Promise<number> {
  const t0 = performance.now();
  const worker = start();
  await new Promise((resolve) => worker.once('online', resolve));
  const ms = performance.now() - t0;
  await worker.terminate();
  return ms;
}

/** The two starts, alternating, RUNS times each after a warm-up: their medians. */
async function pair(a: () => Worker, b: () => Worker): Promise<[number, number]> {
  const as: number[] = [];
  const bs: number[] = [];
  await onlineMs(a);
  await onlineMs(b);
  for (let i = 0; i < RUNS; i++) {
    as.push(await onlineMs(a));
    bs.push(await onlineMs(b));
  }
  return [median(as), median(bs)];
}

/** A calculator pool with one warm thread from `url`: ms and CPU ms until it is warm. */
async function warmEvaluator(url: URL): Promise<{ ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const evaluator = await createEvaluator({ threadUrl: url, warmThreads: 1 });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await evaluator.close();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  const mid = s.length / 2;
  return s.length % 2 === 0 ? (s[mid - 1]! + s[mid]!) / 2 : s[Math.floor(mid)]!;
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section(`Thread start, to 'online' (median of ${RUNS})`);
  const [evalMs, urlMs] = await pair(
    () =>
      new Worker(EVAL_SOURCE, {
        eval: true,
        workerData: watchdogData(),
        resourceLimits: LIMITS,
        execArgv: [],
      }),
    () => startThread(WATCHDOG, { workerData: watchdogData(), resourceLimits: LIMITS }).worker,
  );
  ctx.figure('baseline: watchdog thread, eval source (before)', evalMs, 'ms');
  ctx.figure('watchdog thread, startThread(url) (now)', urlMs, 'ms', { baseline: evalMs });
  const [bareMs, helperMs] = await pair(
    () => new Worker(EMPTY, { execArgv: [] }),
    () => startThread(EMPTY).worker,
  );
  ctx.figure('baseline: empty module, new Worker(url)', bareMs, 'ms');
  ctx.figure('empty module, startThread(url)', helperMs, 'ms', { baseline: bareMs });
  await calculatorThread(ctx);
}

/** The calculator's thread from its compiled modules against the build's bundle of it. */
async function calculatorThread(ctx: BenchContext): Promise<void> {
  const bundle = compiledScriptUrl(import.meta.url, '../workers/calculator/eval-thread.js');
  if (bundle.href === EVAL_THREAD.href) {
    throw new Error(
      'dist/workers/calculator/eval-thread.bundle.js is missing or stale: run `npm run build`',
    );
  }
  const modules: { ms: number; cpuMs: number }[] = [];
  const bundled: { ms: number; cpuMs: number }[] = [];
  await warmEvaluator(EVAL_THREAD);
  await warmEvaluator(bundle);
  for (let i = 0; i < CALC_RUNS; i++) {
    modules.push(await warmEvaluator(EVAL_THREAD));
    bundled.push(await warmEvaluator(bundle));
  }
  ctx.section(`Calculator thread, start to loaded and warm (median of ${CALC_RUNS})`);
  const before = median(modules.map((r) => r.ms));
  const beforeCpu = median(modules.map((r) => r.cpuMs));
  ctx.figure('baseline: from the compiled modules (before)', before, 'ms');
  ctx.figure('from the bundle (now)', median(bundled.map((r) => r.ms)), 'ms', { baseline: before });
  ctx.figure('baseline: CPU, from the compiled modules', beforeCpu, 'ms');
  ctx.figure('CPU, from the bundle', median(bundled.map((r) => r.cpuMs)), 'ms', {
    baseline: beforeCpu,
  });
}
