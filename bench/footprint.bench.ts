/**
 * Footprint: the resident memory of each process `caesar up` starts, idle after `ready:`,
 * against a bare Node process (`node -e "setInterval(() => {}, 1000)"`) measured in the same
 * run. Two stacks: `--tools calculator` and the default (every shipped tool). For the
 * calculator stack also the first call (which starts an evaluation thread, ADR 0048), the
 * calculator's memory with that thread warm, and the memory once the thread has been idle
 * for `tools.calculator.idle_seconds` (set to 2 s here).
 *
 * RSS counts the pages a process shares with others (the node binary's code, ~34 MB of a
 * bare Node's ~40 MB) in each of them; PSS divides shared pages among their users, so the
 * PSS total is what the stack really takes. Linux only (`/proc`).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run.js footprint
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { benchSize, type BenchContext } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
/** How long the stack idles after `ready:` before it is measured. */
const IDLE_MS = benchSize(5000, 500);
const READY_TIMEOUT_MS = 90_000;

/** Targets of issue 13, per process kind, MiB of RSS. */
const TARGETS: Readonly<Record<string, number>> = {
  supervisor: 50,
  brain: 80,
  calculator: 80,
  tool: 60,
};

interface Memory {
  rss: number;
  pss: number | undefined;
}

interface Member extends Memory {
  pid: number;
  /** `supervisor`, `brain`, a tool's name, `nats-server`, or the command of a helper. */
  name: string;
}

async function memoryOf(pid: number): Promise<Memory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  let pss: number | undefined;
  try {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
    pss = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? NaN) / 1024;
  } catch {
    pss = undefined; // kernels before 4.14
  }
  return { rss, pss };
}

/** Every process below `root`, from each process's parent in /proc/<pid>/stat. */
async function descendants(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number): void => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return out;
}

async function nameOf(pid: number): Promise<string> {
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
  const command = argv[0]?.split('/').pop() ?? String(pid);
  if (command !== 'node' && command !== process.execPath.split('/').pop()) return command;
  const serve = argv.indexOf('serve-tool');
  if (serve >= 0) return argv[serve + 1] ?? 'tool';
  return argv.includes('brain') ? 'brain' : command;
}

async function members(supervisor: number): Promise<Member[]> {
  const out: Member[] = [{ pid: supervisor, name: 'supervisor', ...(await memoryOf(supervisor)) }];
  for (const pid of await descendants(supervisor)) {
    try {
      out.push({ pid, name: await nameOf(pid), ...(await memoryOf(pid)) });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** A bare Node process, idle: the baseline every figure is printed against. */
async function bareNode(): Promise<Memory> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    stdio: 'ignore',
  });
  try {
    await sleep(2000);
    return await memoryOf(child.pid!);
  } finally {
    child.kill();
  }
}

interface Stack {
  child: ChildProcess;
  dataDir: string;
  stop(): Promise<void>;
}

async function startStack(tools: string | undefined, env: NodeJS.ProcessEnv): Promise<Stack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'caesar-bench-footprint-'));
  const args = [CLI, 'up', '--data-dir', dataDir, '--api-port', '0', '--nats-port', '0'];
  if (tools !== undefined) args.push('--tools', tools);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (l) => stderr.push(l));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('caesar up was not ready')),
        READY_TIMEOUT_MS,
      );
      void exited.then(() => reject(new Error(`caesar up exited:\n${stderr.join('\n')}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith('ready:')) return;
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { child, dataDir, stop };
}

/**
 * `caesar invoke calculator …` against the running stack; its wall time in ms. The
 * expression has units so it needs mathjs, and a thread: plain arithmetic such as `17 * 23`
 * is answered by the quick path (ADR 0050) and would start none.
 */
async function invokeCalculator(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'invoke', 'calculator', '{"expression": "17 km / km * 23"}', '--data-dir', dataDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0 || !out.includes('391')) throw new Error(`caesar invoke failed: ${out}`);
  return performance.now() - started;
}

function report(ctx: BenchContext, all: Member[], bare: Memory): void {
  const shown = all.filter((m) => m.name !== 'sh' && m.name !== 'cat');
  for (const m of shown) {
    const kind = ['supervisor', 'brain', 'calculator', 'nats-server'].includes(m.name)
      ? m.name
      : 'tool';
    const target = TARGETS[kind];
    ctx.figure(`${m.name} RSS`, m.rss, 'MiB', {
      baseline: bare.rss,
      ...(target === undefined ? {} : { target: `<= ${target} MiB` }),
    });
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  ctx.figure(`total RSS (${all.length} processes)`, sum(all.map((m) => m.rss)), 'MiB', {
    baseline: bare.rss,
  });
  if (all.every((m) => m.pss !== undefined)) {
    ctx.figure('total PSS (shared pages divided)', sum(all.map((m) => m.pss!)), 'MiB', {
      baseline: bare.pss,
    });
  }
}

async function calculatorStack(ctx: BenchContext, bare: Memory): Promise<void> {
  const configDir = await mkdtemp(join(tmpdir(), 'caesar-bench-footprint-config-'));
  const config = join(configDir, 'caesar.yaml');
  // threads that stop when idle stop soon, so the bench sees the idle state they lead to
  await writeFile(
    config,
    'tools:\n  calculator:\n    idle_seconds: 2\naudit:\n  writer_idle: 2s\n',
  );
  const stack = await startStack('calculator', { CAESAR_CONFIG: config });
  try {
    await sleep(IDLE_MS);
    ctx.section(
      `Footprint: caesar up --tools calculator, idle ${IDLE_MS / 1000} s after ready (baseline: a bare node process, ${bare.rss.toFixed(1)} MiB RSS)`,
    );
    const before = await members(stack.child.pid!);
    report(ctx, before, bare);
    const calculator = before.find((m) => m.name === 'calculator');
    const brain = before.find((m) => m.name === 'brain');
    const cold = await invokeCalculator(stack.dataDir);
    const warm = await invokeCalculator(stack.dataDir);
    ctx.figure('first call, caesar invoke (starts a thread)', cold, 'ms', { baseline: warm });
    ctx.figure('next call, caesar invoke', warm, 'ms');
    if (calculator) {
      const withThread = await memoryOf(calculator.pid);
      ctx.figure('calculator RSS, one thread warm', withThread.rss, 'MiB', {
        baseline: bare.rss,
      });
      // idle_seconds 2, then the thread's exit; the brain's writer thread (writer_idle 2 s,
      // its first retention sweep 10 s after open) has stopped by then too
      await sleep(6000);
      const retired = await memoryOf(calculator.pid);
      ctx.figure('calculator RSS, thread stopped after idle_seconds', retired.rss, 'MiB', {
        baseline: bare.rss,
        target: `<= ${TARGETS.calculator} MiB`,
      });
    }
    if (brain) {
      const settled = await memoryOf(brain.pid);
      ctx.figure('brain RSS, writer thread stopped (writer_idle)', settled.rss, 'MiB', {
        baseline: bare.rss,
        target: `<= ${TARGETS.brain} MiB`,
      });
    }
  } finally {
    await stack.stop();
    await rm(configDir, { recursive: true, force: true });
  }
}

async function defaultStack(ctx: BenchContext, bare: Memory): Promise<void> {
  const stack = await startStack(undefined, {});
  try {
    await sleep(IDLE_MS);
    ctx.section(`Footprint: caesar up (every shipped tool), idle ${IDLE_MS / 1000} s after ready`);
    report(ctx, await members(stack.child.pid!), bare);
  } finally {
    await stack.stop();
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  if (process.platform !== 'linux') {
    ctx.section('Footprint: skipped (reads /proc; Linux only)');
    return;
  }
  const bare = await bareNode();
  await calculatorStack(ctx, bare);
  await defaultStack(ctx, bare);
}
