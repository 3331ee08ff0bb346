/**
 * CLI start-up (issue 13, target 5; ADR 0047): whole processes, from spawn to exit, against
 * `node -e 0` measured in the same run, the two alternating run by run so a drifting machine
 * moves both. Figures are min / median / max of RUNS runs; the ratio is median to median.
 *
 * - `caesar --help` and `caesar chat --help`: commander and the command declarations only.
 *   `--help` and `chat` also run from the modules (`cli.js`, what the bin runs without a fresh
 *   bundle), to show what the bundle saves.
 * - `caesar chat "what is 2 * 3"`: the client side of a chat turn (flags, config,
 *   runtime.json, the tokens file, the API client, one streamed request, the printed reply)
 *   against a loopback stub that answers at once as the brain streams a turn, so the brain's
 *   own time is not in it. It finds the stub as it finds `caesar up`: through
 *   `./var/runtime.json`.
 * - The parts, each as a process that does only that: import commander, zod, the client
 *   runners as modules and as the bundle the build makes; send one request over node:http,
 *   and one with `fetch`.
 *
 * - `caesar up` from spawn to its `ready:` line (every part started and answering), in a new
 *   data directory each run, as on the first day: `--tools calculator` and the default stack
 *   (target: at most 2 s on an idle machine).
 *
 *   npm run build && node dist/bench/run.js startup
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeRuntimeFile } from '../src/config/index.js';
import { benchSize, type BenchContext } from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
/** What the bin runs without a fresh bundle: the modules one by one. */
const MODULES = fileURLToPath(new URL('../src/cli/program/cli.js', import.meta.url));
const CLI_DIR = new URL('../src/cli/', import.meta.url);
/** What the client commands import(): the bundle makes it a chunk named after it (`runners`). */
const CLIENT = new URL('brain-client/runners.js', CLI_DIR).href;
const RUNS = benchSize(15, 1);
const TOKEN = 'bench-token-0123456789abcdef0123';
const TARGET = '<= 150 ms wall';
const UP_RUNS = benchSize(5, 1);
const UP_TIMEOUT_MS = 60_000;

/** A command line (node and its arguments) and where it runs. */
interface Process {
  args: string[];
  cwd?: string;
}

/** Wall ms from spawn to exit; the output is read and dropped. Fails on a non-zero exit. */
function timeOnce(p: Process, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, p.args, {
      cwd: p.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${p.args.join(' ')} exited ${code}: ${stderr.trim()}`));
    });
  });
}

/** `runs` runs of each process, alternating with the baseline; sorted wall ms of each. */
async function alternate(
  baseline: Process,
  processes: readonly Process[],
  env: NodeJS.ProcessEnv,
  runs: number,
): Promise<{ baseline: number[]; each: number[][] }> {
  const out = { baseline: [] as number[], each: processes.map(() => [] as number[]) };
  for (const p of [baseline, ...processes]) await timeOnce(p, env); // warm the page cache
  for (let i = 0; i < runs; i++) {
    for (const [j, p] of processes.entries()) {
      out.baseline.push(await timeOnce(baseline, env));
      out.each[j]!.push(await timeOnce(p, env));
    }
  }
  out.baseline.sort((a, b) => a - b);
  for (const xs of out.each) xs.sort((a, b) => a - b);
  return out;
}

const median = (xs: readonly number[]) => xs[xs.length >> 1] ?? NaN;

function report(
  ctx: BenchContext,
  name: string,
  xs: readonly number[],
  base: number,
  target?: string,
): void {
  const spread = `(min ${Math.round(xs[0]!)}, max ${Math.round(xs.at(-1)!)})`;
  ctx.figure(name, median(xs), `ms ${spread}`, {
    baseline: base,
    ...(target ? { target } : {}),
  });
}

/**
 * `caesar up` in a new data directory, from spawn to its `ready:` line, in ms; then SIGINT
 * and the wait for it to exit (untimed). Ports are chosen by the system.
 */
async function upToReady(tools: string | undefined, env: NodeJS.ProcessEnv): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'caesar-bench-up-'));
  const args = [CLI, 'up', '--data-dir', dataDir, '--api-port', '0', '--nats-port', '0'];
  if (tools !== undefined) args.push('--tools', tools);
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (l) => stderr.push(l));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('caesar up: no ready line')), UP_TIMEOUT_MS);
      void exited.then(() => reject(new Error(`caesar up exited:\n${stderr.join('\n')}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith('ready:')) return;
        clearTimeout(timer);
        resolve(performance.now() - started);
      });
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A loopback stand-in for the brain: answers `POST /v1/chat` at once with a streamed turn. */
async function startStub(): Promise<Server> {
  const reportBody = {
    tool: 'calculator',
    input: { expression: '2 * 3' },
    outcome: 'ok',
    result: 6,
    decision_id: 'dec-bench',
    duration_ms: 1,
  };
  const response = {
    session_id: 'sess-bench',
    reply: '2 * 3 = 6',
    tool_calls: [reportBody],
    iterations: 1,
    capped: false,
    planner: 'intent',
  };
  const frames = [
    ['tool_call', { call_id: 'intent', tool: 'calculator', input: reportBody.input }],
    ['tool_result', { call_id: 'intent', report: reportBody }],
    ['done', { response }],
  ]
    .map(([event, data]) => `event: ${event as string}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('');
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-bench' });
      res.end(frames);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export async function run(ctx: BenchContext): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-bench-startup-'));
  const server = await startStub();
  try {
    const port = (server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}`;
    const tokenFile = join(dir, 'api-tokens.yaml');
    await writeFile(tokenFile, `tokens:\n  - name: operator\n    token: ${TOKEN}\n`);
    await chmod(tokenFile, 0o600);
    await writeRuntimeFile(join(dir, 'var'), {
      pid: process.pid,
      started_at: new Date().toISOString(),
      data_dir: join(dir, 'var'),
      nats_url: 'nats://127.0.0.1:1',
      api_url: url,
      token_file: tokenFile,
      token_name: 'operator',
      audit_db: join(dir, 'var', 'audit.db'),
      policy_file: join(dir, 'policy.yaml'),
      tools: ['calculator'],
    });
    // no CAESAR_* setting of the bench's own environment may steer the CLI
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('CAESAR_')),
    );
    const baseline: Process = { args: ['-e', '0'] };
    const cli: Process[] = [
      { args: [CLI, '--help'] },
      { args: [CLI, 'chat', '--help'] },
      { args: [CLI, 'chat', 'what is 2 * 3'], cwd: dir },
      { args: [MODULES, '--help'] },
      { args: [MODULES, 'chat', 'what is 2 * 3'], cwd: dir },
    ];
    const imports = (spec: string): Process => ({
      args: ['--input-type=module', '-e', `await import(${JSON.stringify(spec)})`],
      cwd: dir,
    });
    // the client's chunk of the build's bundle (scripts/bundle.mjs names it by its hash)
    const chunk = (await readdir(CLI_DIR)).find((f) => /^cli\.bundle-runners-.*\.js$/.test(f));
    if (chunk === undefined) throw new Error('no bundle of the CLI: run npm run build');
    const parts: Process[] = [
      { args: ['--input-type=module', '-e', `await import('commander')`] },
      { args: ['--input-type=module', '-e', `await import('zod')`] },
      imports(CLIENT),
      imports(new URL(chunk, CLI_DIR).href),
      { args: ['-e', `require('node:http').get('${url}/', (r) => r.resume())`] },
      { args: ['-e', `fetch('${url}/').then((r) => r.text())`] },
    ];
    const whole = await alternate(baseline, cli, env, RUNS);
    const base = median(whole.baseline);
    ctx.section(
      `CLI start-up: whole processes, spawn to exit, vs node -e 0 in the same run (median of ${RUNS}, ms)`,
    );
    report(ctx, 'node -e 0 (baseline)', whole.baseline, base);
    report(ctx, 'caesar --help', whole.each[0]!, base, TARGET);
    report(ctx, 'caesar chat --help', whole.each[1]!, base, TARGET);
    report(ctx, 'caesar chat "what is 2 * 3", client side', whole.each[2]!, base, TARGET);
    report(ctx, 'caesar --help, modules (no bundle)', whole.each[3]!, base);
    report(ctx, 'caesar chat "…", modules (no bundle)', whole.each[4]!, base);

    // commander and zod resolve from the repository's node_modules: run them from it
    const repo = fileURLToPath(new URL('../../', import.meta.url));
    for (const p of parts.slice(0, 2)) p.cwd = repo;
    const split = await alternate(baseline, parts, env, RUNS);
    const partBase = median(split.baseline);
    ctx.section('CLI start-up, its parts: a process that does only that (median, ms)');
    report(ctx, 'node -e 0 (baseline)', split.baseline, partBase);
    const names = [
      'import commander',
      'import zod',
      'import the client runners, as modules',
      "import the client runners, the bundle's chunk",
      'one request, node:http (the client now)',
      'one request, fetch (the client before)',
    ];
    names.forEach((name, i) => report(ctx, name, split.each[i]!, partBase));

    ctx.section(`caesar up: spawn to ready, a new data directory each run (${UP_RUNS} runs, ms)`);
    for (const [name, tools] of [
      ['caesar up --tools calculator', 'calculator'],
      ['caesar up (default stack)', undefined],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < UP_RUNS; i++) times.push(await upToReady(tools, env));
      times.sort((a, b) => a - b);
      const spread = `(min ${Math.round(times[0]!)}, max ${Math.round(times.at(-1)!)})`;
      ctx.figure(name, median(times), `ms ${spread}`, { target: '<= 2,000 ms idle' });
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  }
}
