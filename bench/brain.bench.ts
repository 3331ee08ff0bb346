/**
 * The brain's full HTTP path: client -> brain (auth, validation) -> policy -> audit
 * (`tool.called` made durable) -> NATS -> calculator worker -> audit (`tool.result`) -> back,
 * at concurrency 32, against raw NATS request/reply of the same request bytes measured in
 * the same run. Also the brain's resident memory when idle, after start and after the load.
 *
 * The brain and the calculator run as real processes (`caesar brain`,
 * `caesar legion serve-tool calculator`), as under `caesar up`; the raw responder runs in
 * another child process. Rounds alternate and each figure is the median round.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run.js brain
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readTokensFile } from '../src/brain/http/index.js';
import { connectBus, startNatsServer } from '../src/bus/index.js';
import { DISPATCH_QUEUE_GROUP, dispatchSubject } from '../src/protocol/index.js';
import { percentile, throughput, type BenchContext, type Call } from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RAW_TOOL = 'bench_raw';
const CONCURRENCY = 32;
const WARMUP = 1_000;
const CALLS = 3_000;
const ROUNDS = 3;
const INPUT = { expression: '17 * 23' };

/** Child-process side: a raw echo responder until stdin closes. */
async function serveRaw(url: string): Promise<void> {
  const nc = await connectBus({ servers: url, name: 'bench-raw' });
  nc.subscribe(dispatchSubject(RAW_TOOL), {
    queue: DISPATCH_QUEUE_GROUP,
    callback: (err, msg) => {
      if (!err) msg.respond(msg.data);
    },
  });
  process.stdin.on('close', () => process.exit(0));
  process.stdin.resume();
  process.stdout.write('ready\n');
}

function spawnUntil(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise<{ child: ChildProcess; line: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`)));
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      if (ready.test(line)) resolve({ child, line });
    });
  });
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  child.stdin?.end();
  await exited;
}

export async function run(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-bench-brain-'));
  await using server = await startNatsServer();
  const children: ChildProcess[] = [];
  try {
    const policy = join(dir, 'policy.yaml');
    await writeFile(policy, 'version: 1\nallowed_tools:\n  - tool: calculator\n');
    const common = ['--nats-url', server.url, '--log-level', 'silent'];
    const raw = await spawnUntil([fileURLToPath(import.meta.url), '--raw', server.url], /^ready/);
    children.push(raw.child);
    // no ready line to wait for: the brain's first successful call below is the signal
    children.push(
      spawn(process.execPath, [CLI, 'legion', 'serve-tool', 'calculator', ...common], {
        stdio: ['pipe', 'ignore', 'inherit'],
      }),
    );
    const brain = await spawnUntil(
      [CLI, 'brain', ...common, '--data-dir', dir, '--api-port', '0', '--policy', policy],
      /^brain ready: /,
      { CAESAR_API__RATE_LIMIT: '0' },
    );
    children.push(brain.child);
    const url = /^brain ready: (\S+)/.exec(brain.line)?.[1] ?? '';
    const [first] = await readTokensFile(join(dir, 'api-tokens.yaml'));
    const headers = {
      authorization: `Bearer ${first?.token ?? ''}`,
      'content-type': 'application/json',
    };
    const body = JSON.stringify({ input: INPUT });
    const http: Call = async () => {
      const res = await fetch(`${url}/v1/tools/calculator/invoke`, {
        method: 'POST',
        headers,
        body,
      });
      const report = (await res.json()) as { outcome?: string };
      if (report.outcome !== 'ok') throw new Error(`bench call failed: ${JSON.stringify(report)}`);
    };
    // discovery: the first call may come before the brain has seen the calculator
    for (let i = 0; ; i++) {
      const res = await fetch(`${url}/v1/tools/calculator/invoke`, {
        method: 'POST',
        headers,
        body,
      });
      if (((await res.json()) as { outcome?: string }).outcome === 'ok') break;
      if (i > 100) throw new Error('the brain never served the calculator');
      await sleep(100);
    }
    await sleep(2000);
    const idleStart = await rssMiB(brain.child.pid!);

    const nc = await connectBus({ servers: server.url, name: 'bench-caller' });
    try {
      const envelope = {
        v: 1,
        tool: 'calculator',
        input: INPUT,
        decision_id: 'x'.repeat(36),
        deadline: Date.now(),
      };
      const payload = new TextEncoder().encode(JSON.stringify(envelope));
      const rawSubject = dispatchSubject(RAW_TOOL);
      const rawCall: Call = async () => {
        await nc.request(rawSubject, payload, { timeout: 10_000 });
      };
      await throughput(rawCall, WARMUP, CONCURRENCY);
      await throughput(http, WARMUP, CONCURRENCY);
      const rates = { raw: [] as number[], http: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        rates.raw.push(await throughput(rawCall, CALLS * 5, CONCURRENCY));
        rates.http.push(await throughput(http, CALLS, CONCURRENCY));
      }
      await sleep(3000);
      const idleAfter = await rssMiB(brain.child.pid!);
      const median = (xs: number[]) => percentile([...xs], 50);
      ctx.section(
        `Brain HTTP path: POST /v1/tools/calculator/invoke (auth, policy, durable audit x2, NATS, ` +
          `calculator process) vs raw NATS request/reply, concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds`,
      );
      ctx.figure(`raw request/reply, concurrency ${CONCURRENCY}`, median(rates.raw), 'req/s');
      ctx.figure(`HTTP invoke, concurrency ${CONCURRENCY}`, median(rates.http), 'req/s', {
        baseline: median(rates.raw),
      });
      ctx.figure('brain RSS, idle after start', idleStart, 'MiB');
      ctx.figure(`brain RSS, idle after ${ROUNDS * CALLS + WARMUP} calls`, idleAfter, 'MiB');
    } finally {
      await nc.close();
    }
  } finally {
    for (const child of children.reverse()) await stop(child);
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--raw' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await serveRaw(process.argv[3] ?? '');
}
