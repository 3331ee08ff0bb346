/**
 * Sandboxed command tools (issue 33, ADR 0097): the per-call cost of running a program in a
 * fresh bubblewrap sandbox (namespaces, read-only /usr, a tmpfs, prlimit, and in cgroup mode
 * a cgroup made and removed per call) against spawning the same program directly. Wall time
 * is the median of RUNS calls after a warm-up. CPU is per call, averaged, of everything the
 * bench runs: the bench moves itself into a cgroup v1 `cpuacct` group of its own, so the
 * processes of a pid namespace, which no one reaps into this process's `cutime`, are counted
 * too; without cpuacct it falls back to /proc/self/stat (own and reaped children's CPU),
 * which misses the sandboxed program and says so. The direct and sandboxed calls of a pair
 * alternate, so a drifting machine moves both.
 *
 *   npm run build && node dist/bench/run.js sandbox
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../src/legion/sandbox/limits.js';
import { Sandbox } from '../src/legion/sandbox/sandbox.js';
import { spawnChild } from '../src/process/index.js';
import { benchSize, type BenchContext } from './harness.js';

const RUNS = benchSize(40, 3);
const TICK_MS = 10; // USER_HZ 100

const CPUACCT = '/sys/fs/cgroup/cpuacct';
let cpuacctDir: string | undefined;

/** Moves this process into a cpuacct group of its own; false where it cannot. */
async function enterCpuacct(): Promise<boolean> {
  const dir = join(CPUACCT, `caesar-bench-${process.pid}`);
  try {
    await mkdir(dir);
    await writeFile(join(dir, 'cgroup.procs'), String(process.pid));
    cpuacctDir = dir;
    return true;
  } catch {
    await rmdir(dir).catch(() => undefined);
    return false;
  }
}

async function leaveCpuacct(): Promise<void> {
  if (cpuacctDir === undefined) return;
  await writeFile(join(CPUACCT, 'cgroup.procs'), String(process.pid)).catch(() => undefined);
  await rmdir(cpuacctDir).catch(() => undefined);
}

/** CPU ms so far: the cpuacct group's, else this process's and its reaped children's. */
function cpuMs(): number {
  if (cpuacctDir !== undefined) {
    return Number(readFileSync(join(cpuacctDir, 'cpuacct.usage'), 'utf8')) / 1e6;
  }
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime stime cutime cstime are fields 14-17, 12-15 after the name
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]) * TICK_MS, 0);
}

async function direct(program: string, args: string[]): Promise<void> {
  const { child, exited } = spawnChild(program, args, { env: { PATH: '/usr/bin:/bin' } });
  child.stdout?.resume();
  child.stderr?.resume();
  const end = await exited;
  if (end.code !== 0) throw new Error(`${program} exited ${end.code}`);
}

interface Measured {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function measure(fn: () => Promise<unknown>, walls: number[]): Promise<number> {
  const cpu0 = cpuMs();
  const t0 = performance.now();
  await fn();
  walls.push(performance.now() - t0);
  return cpuMs() - cpu0;
}

async function pair(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[Measured, Measured]> {
  await a();
  await b();
  const wa: number[] = [];
  const wb: number[] = [];
  let ca = 0;
  let cb = 0;
  for (let i = 0; i < RUNS; i++) {
    ca += await measure(a, wa);
    cb += await measure(b, wb);
  }
  return [
    { wallMs: median(wa), cpuMs: ca / RUNS },
    { wallMs: median(wb), cpuMs: cb / RUNS },
  ];
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  const mid = s.length / 2;
  return s.length % 2 === 0 ? (s[mid - 1]! + s[mid]!) / 2 : s[Math.floor(mid)]!;
}

const PROGRAMS: readonly [string, string[]][] = [
  ['/usr/bin/true', []],
  ['/usr/bin/dig', ['-v']],
];

export async function run(ctx: BenchContext): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), 'caesar-bench-sandbox-'));
  const cpuacct = await enterCpuacct();
  ctx.section(
    cpuacct
      ? 'CPU: a cpuacct cgroup of the bench, every process it started included'
      : 'CPU: /proc/self/stat, own and reaped children only: the sandboxed program is not counted',
  );
  try {
    for (const memory of ['rlimit', 'cgroup'] as const) {
      for (const [program, args] of PROGRAMS) {
        const sandbox = new Sandbox(
          { program, read: [], write: [], network: false, limits: DEFAULT_LIMITS },
          { scratchDir: scratch, memory },
        );
        try {
          await sandbox.memoryMode();
        } catch (err) {
          ctx.section(`${program} (${memory}): not measured: ${(err as Error).message}`);
          continue;
        }
        const [d, s] = await pair(
          () => direct(program, args),
          () => sandbox.run(args),
        );
        const name = `${program} ${args.join(' ')}`.trim();
        ctx.section(`${name}, memory limit by ${memory} (median wall of ${RUNS}, mean CPU)`);
        ctx.figure('baseline: spawned directly, wall', d.wallMs, 'ms');
        ctx.figure('sandboxed, wall', s.wallMs, 'ms', { baseline: d.wallMs });
        ctx.figure('baseline: spawned directly, CPU', d.cpuMs, 'ms');
        ctx.figure('sandboxed, CPU', s.cpuMs, 'ms', { baseline: d.cpuMs });
        await sandbox.stop();
      }
    }
  } finally {
    await leaveCpuacct();
    await rm(scratch, { recursive: true, force: true });
  }
}
