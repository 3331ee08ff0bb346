/**
 * Dispatch: raw NATS request/reply against SDK dispatch (brain dispatch client -> legion
 * worker) to an echo tool, at concurrency 1 (latency) and 64 (throughput).
 *
 * Both responders run in one child process (a realistic split on two cores: the worker
 * on one, the caller on the other) and are measured one after the other, never at once:
 * the raw responder echoes the request bytes back; the SDK worker validates the envelope
 * and input, runs the handler under its deadline and concurrency cap, validates the
 * output and answers with a reply envelope. The raw path sends the very bytes the SDK
 * sends for the same call. Latency samples interleave raw and SDK calls one by one;
 * throughput rounds alternate and each figure is the median round, so load drift on a
 * shared machine hits both paths alike.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run.js dispatch
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { createDispatcher } from '../src/brain/dispatch/index.js';
import { ReplyMux } from '../src/brain/dispatch/reply-mux.js';
import { connectBus, startNatsServer } from '../src/bus/index.js';
import { defineTool, serveTools } from '../src/legion/index.js';
import { silentLogger } from '../src/log/index.js';
import { DISPATCH_QUEUE_GROUP, dispatchSubject } from '../src/protocol/index.js';
import {
  benchRounds,
  benchSize,
  percentile,
  throughput,
  type BenchContext,
  type Call,
} from './harness.js';

const SDK_TOOL = 'bench_echo';
const RAW_TOOL = 'bench_raw';
const TEXT = 'x'.repeat(256);
const WARMUP = benchSize(5_000, 100);
const LATENCY_CALLS = benchSize(5_000, 20);
const THROUGHPUT_CALLS = benchSize(20_000, 200);
const ROUNDS = benchRounds(5);
const TIMEOUT_MS = 10_000;

const echoTool = defineTool({
  name: SDK_TOOL,
  version: '1.0.0',
  description: 'Benchmark echo: returns its text.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.object({ text: z.string() }),
  output: z.object({ text: z.string() }),
  // An echo is pure CPU and instant: its author would not cap it at the default 4.
  maxConcurrency: 256,
  maxQueue: 1024,
  handler: (input) => ({ text: input.text }),
});

/** Child-process side: serve the raw echo and the SDK echo tool until stdin closes. */
async function serveResponders(url: string): Promise<void> {
  const nc = await connectBus({ servers: url, name: 'bench-responders' });
  nc.subscribe(dispatchSubject(RAW_TOOL), {
    queue: DISPATCH_QUEUE_GROUP,
    callback: (err, msg) => {
      if (!err) msg.respond(msg.data);
    },
  });
  const worker = await serveTools([echoTool], { nc, logger: silentLogger(), host: 'bench' });
  process.stdin.on('close', () => {
    void worker.stop().finally(() => process.exit(0));
  });
  process.stdin.resume();
  process.stdout.write('ready\n');
}

function startResponders(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--responders', url], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`responder child exited (${code})`)));
    createInterface({ input: child.stdout }).once('line', () => resolve(child));
  });
}

/**
 * `n` sequential rounds; each round makes one call of each kind, in alternating order.
 * Returns per-kind latencies in microseconds.
 */
async function latencies(calls: Call[], n: number): Promise<number[][]> {
  const out = calls.map(() => new Array<number>(n));
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < calls.length; k++) {
      const j = i % 2 === 0 ? k : calls.length - 1 - k;
      const t = performance.now();
      await calls[j]!();
      out[j]![i] = (performance.now() - t) * 1000;
    }
  }
  return out;
}

const median = (xs: number[]) => percentile([...xs], 50);

export async function run(ctx: BenchContext): Promise<void> {
  await using server = await startNatsServer();
  const child = await startResponders(server.url);
  const nc = await connectBus({ servers: server.url, name: 'bench-caller' });
  try {
    const dispatcher = createDispatcher({ nc });
    const input = { text: TEXT };
    const envelope = {
      v: 1,
      tool: SDK_TOOL,
      input,
      decision_id: 'bench-decision',
      deadline: Date.now() + TIMEOUT_MS,
    };
    const payload = new TextEncoder().encode(JSON.stringify(envelope));
    const rawSubject = dispatchSubject(RAW_TOOL);
    const raw: Call = async () => {
      await nc.request(rawSubject, payload, { timeout: TIMEOUT_MS });
    };
    // The dispatcher's own transport with nothing on top: the same bytes over ReplyMux, no
    // envelope building or parsing. SDK against this shows what the SDK itself costs.
    const mux = new ReplyMux(nc);
    const rawMux: Call = async () => {
      const outcome = await mux.request(rawSubject, payload, TIMEOUT_MS);
      if (outcome.kind !== 'reply') throw new Error(`bench call failed: ${outcome.kind}`);
    };
    const sdk: Call = async () => {
      const reply = await dispatcher.dispatch(SDK_TOOL, input, {
        decisionId: 'bench-decision',
        deadline: Date.now() + TIMEOUT_MS,
      });
      if (!reply.success) throw new Error(`bench call failed: ${reply.error.code}`);
    };

    for (const call of [raw, rawMux, sdk]) {
      await throughput(call, WARMUP, 64);
      await latencies([call], WARMUP / 5);
    }
    // Latency: raw and SDK calls interleaved one by one, so load drifts hit both alike.
    const [rawLat, muxLat, sdkLat] = (await latencies([raw, rawMux, sdk], LATENCY_CALLS)) as [
      number[],
      number[],
      number[],
    ];
    // Throughput: alternating rounds; each figure is the median round.
    const tput = { raw: [] as number[], mux: [] as number[], sdk: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      tput.raw.push(await throughput(raw, THROUGHPUT_CALLS, 64));
      tput.mux.push(await throughput(rawMux, THROUGHPUT_CALLS, 64));
      tput.sdk.push(await throughput(sdk, THROUGHPUT_CALLS, 64));
    }
    const r = { tput: median(tput.raw), p50: percentile(rawLat, 50), p99: percentile(rawLat, 99) };
    const m = { tput: median(tput.mux), p50: percentile(muxLat, 50) };
    const s = { tput: median(tput.sdk), p50: percentile(sdkLat, 50), p99: percentile(sdkLat, 99) };
    ctx.section(
      `Dispatch: raw NATS request/reply vs SDK dispatch, echo, ${payload.length}-byte request, ` +
        `responders in a child process, latency interleaved, throughput median of ${ROUNDS} alternating rounds`,
    );
    ctx.figure('raw request/reply, concurrency 64', r.tput, 'req/s');
    ctx.figure('SDK dispatch, concurrency 64', s.tput, 'req/s', {
      baseline: r.tput,
      target: '>= 0.80x',
    });
    ctx.figure('raw request/reply p50, concurrency 1', r.p50, 'us');
    ctx.figure('SDK dispatch p50, concurrency 1', s.p50, 'us', { baseline: r.p50 });
    ctx.figure('SDK p50 added, concurrency 1', s.p50 - r.p50, 'us', { target: '<= 50 us' });
    ctx.figure('raw request/reply p99, concurrency 1', r.p99, 'us');
    ctx.figure('SDK dispatch p99, concurrency 1', s.p99, 'us', { baseline: r.p99 });
    // second baseline: the dispatcher's transport (ReplyMux) without the SDK on top
    ctx.figure('raw publish over ReplyMux, concurrency 64', m.tput, 'req/s');
    ctx.figure('SDK dispatch vs ReplyMux, concurrency 64', s.tput, 'req/s', {
      baseline: m.tput,
    });
    ctx.figure('raw publish over ReplyMux p50, concurrency 1', m.p50, 'us');
    ctx.figure('SDK p50 added over ReplyMux, concurrency 1', s.p50 - m.p50, 'us');
  } finally {
    await nc.close();
    child.stdin?.end();
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
  }
}

if (
  process.argv[2] === '--responders' &&
  import.meta.url === pathToFileURL(process.argv[1] ?? '').href
) {
  await serveResponders(process.argv[3] ?? '');
}
