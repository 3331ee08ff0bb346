/**
 * The HTTP load generator of the brain bench: wrk (apt package `wrk`), which costs less
 * CPU per request than a Node.js driver on the same 2 cores, so a throughput figure is the
 * server's and not the driver's. bench/wrk.lua POSTs one body on every connection and
 * counts every answer without `expect` as failed. Runs for a duration, not a count.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load.js';

const SCRIPT = fileURLToPath(new URL('../../bench/wrk.lua', import.meta.url));

export interface WrkTarget {
  readonly url: string;
  readonly body: string;
  /** The marker every successful answer contains. */
  readonly expect: string;
  readonly authorization?: string;
  /** An MCP session's id, sent as `Mcp-Session-Id`. */
  readonly session?: string;
}

export interface WrkRun {
  readonly concurrency: number;
  readonly seconds: number;
  /** Requests per second in all, paced per connection (wrk's `delay()`); none: flat out. */
  readonly rate?: number;
}

/** Runs wrk once; latencies in microseconds, `cpuPerCall` wrk's own CPU per request. */
export async function runWrk(
  target: WrkTarget,
  run: WrkRun,
): Promise<LoadResult & { calls: number }> {
  const threads = Math.min(2, run.concurrency);
  const delayMs = run.rate === undefined ? 0 : Math.round((run.concurrency / run.rate) * 1000);
  const args = [
    '-c',
    String(run.concurrency),
    '-t',
    String(threads),
    '-d',
    `${run.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    SCRIPT,
    target.url,
  ];
  // `times` prints the shell's children's CPU time once wrk has exited
  const child = spawn('sh', ['-c', 'wrk "$@" && times', 'wrk', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      WRK_BODY: target.body,
      WRK_EXPECT: target.expect,
      WRK_AUTH: target.authorization ?? '',
      WRK_SESSION: target.session ?? '',
      WRK_DELAY_MS: String(delayMs),
    },
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  const line = /^\{"requests".*$/m.exec(out)?.[0];
  if (code === 127) {
    throw new Error(
      'wrk is not installed: the brain bench drives HTTP with it (apt-get install wrk)',
    );
  }
  if (code !== 0 || line === undefined) throw new Error(`wrk failed (${code}): ${err}${out}`);
  const r = JSON.parse(line) as {
    requests: number;
    duration_us: number;
    p50: number;
    p99: number;
    failed: number;
  };
  const times = [...out.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  const cpuSeconds = (times[2] ?? 0) + (times[3] ?? 0);
  return {
    calls: r.requests,
    rate: r.requests / (r.duration_us / 1e6),
    p50: r.p50,
    p99: r.p99,
    failed: r.failed,
    cpuPerCall: (cpuSeconds * 1e6) / Math.max(1, r.requests),
  };
}

/** A run's result, or an error when any of its calls failed (a figure of failures is none). */
export function checked<T extends LoadResult>(result: T): T {
  if (result.failed > 0) throw new Error(`${result.failed} bench calls failed`);
  return result;
}
