/**
 * Thread start (issue 30, ADR 0082): from the start call to the thread's `online` event, the
 * watchdog's thread as it started before (a `Worker` of an eval'd CommonJS source, built
 * here as the baseline) and as it starts now (`startThread` of the compiled
 * `watchdog-thread.js`), with the same heap limits; then a bare `new Worker(url)` against
 * `startThread(url)` of one empty module, for what the helper itself costs. The two of each
 * pair alternate run by run, so a drifting machine moves both. Median of RUNS runs after
 * one warm-up.
 *
 *   npm run build && node dist/bench/run.js threads
 */
import { Worker } from 'node:worker_threads';
import { startThread } from '../src/process/index.js';
import { benchSize, type BenchContext } from './harness.js';

const RUNS = benchSize(20, 2);
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
}
