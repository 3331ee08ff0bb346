/**
 * What the brain bench reads besides its load generators' answers: CPU time and resident
 * memory of a process (/proc), the cost of one durable commit in a directory, and the
 * brain's own timings from its `/metrics`, and `/healthz` latency while it works.
 */
import Database from 'better-sqlite3';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { GENESIS_HASH, insertStored, openAuditLog, prepareInsert } from '../src/audit/index.js';
import { newDecisionId } from '../src/brain/gateway/ids.js';
import { benchSize, percentile } from './harness.js';

const FSYNC_COMMITS = benchSize(200, 10);

export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/**
 * CPU time (user + system) used so far, microseconds: of a process (all its threads), or of
 * one thread when given as `<pid>/task/<tid>` (`mainThread`).
 */
async function cpuMicros(pid: number | string): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name, which may contain spaces: `) S ppid ...`; utime is 14th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6;
}

/** The processes the brain bench reads, and the brain's main thread (`mainThread`). */
export type Pids = Record<'brain' | 'brainMain' | 'calculator' | 'nats', number | string>;

/** A process's main thread, for `cpuPerCall`: its thread id is the process id. */
export const mainThread = (pid: number): string => `${pid}/task/${pid}`;

/** Runs `fn` and returns the CPU time per call each process of `pids` used meanwhile. */
export async function cpuPerCall<K extends string, T>(
  pids: Record<K, number | string>,
  calls: number,
  fn: () => Promise<T>,
): Promise<{ result: T; cpu: Record<K, number> }> {
  const keys = Object.keys(pids) as K[];
  const before = await Promise.all(keys.map((k) => cpuMicros(pids[k])));
  const result = await fn();
  const after = await Promise.all(keys.map((k) => cpuMicros(pids[k])));
  const cpu = {} as Record<K, number>;
  keys.forEach((k, i) => (cpu[k] = (after[i]! - before[i]!) / calls));
  return { result, cpu };
}

/** One durable single-row commit per call of `write`, into a SQLite file of `dir`. */
export interface DurableWriter {
  write(): void;
  close(): void;
}

/**
 * A durable writer (WAL, `synchronous=FULL`, one row per transaction) on this thread.
 * `page`: a one-column table, one page per commit (the disk's floor). `audit`: one row into
 * the audit log's own schema by raw SQL (its five indexes make each commit write five or six
 * pages), no JavaScript of the log: the fsync each of the governed path's two rows requires.
 */
export async function durableWriter(dir: string, kind: 'page' | 'audit'): Promise<DurableWriter> {
  const path = join(dir, `fsync-${kind}.db`);
  if (kind === 'audit') await openAuditLog({ path, retention: { days: 0, intervalMs: 0 } }).close();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const close = () => void db.close();
  if (kind === 'page') {
    db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, payload TEXT)');
    const insert = db.prepare('INSERT INTO t (payload) VALUES (?)');
    return { write: () => void insert.run('x'.repeat(400)), close };
  }
  // the log's own statement, so the baseline cannot fall behind its columns
  const insert = prepareInsert(db);
  const last = db.prepare('SELECT max(seq) AS seq FROM audit_events').get() as { seq: number };
  let seq = last.seq ?? 0;
  const payload = `{"input":{"expression":"17 * 23"},"decision":{"allowed":true,"rule":"r"}}`;
  const write = () => {
    seq++;
    const [t, o] = seq % 2 ? ['tool.called', 'allowed'] : ['tool.result', 'ok'];
    insertStored(insert, {
      seq,
      ts: new Date().toISOString(),
      eventType: t,
      decisionId: newDecisionId(),
      sessionId: null,
      tool: 'calculator',
      actor: 'default',
      outcome: o,
      payload,
      prevHash: GENESIS_HASH,
      hash: GENESIS_HASH,
      principal: null,
    });
  };
  return { write, close };
}

/** p50 of one durable commit of `kind` (`durableWriter`) in `dir`, in microseconds. */
export async function durableCommitMicros(
  dir: string,
  kind: 'page' | 'audit',
  commits = FSYNC_COMMITS,
): Promise<number> {
  const writer = await durableWriter(dir, kind);
  try {
    const times: number[] = [];
    for (let i = 0; i < commits + 20; i++) {
      const t = performance.now();
      writer.write();
      if (i >= 20) times.push((performance.now() - t) * 1000);
    }
    return percentile(times, 50);
  } finally {
    writer.close();
  }
}

/** Sums and counts of the brain's own timings (`GET /metrics`), to split a call's time. */
export type BrainTimes = Record<
  'audit' | 'dispatch' | 'call' | 'http',
  { sum: number; count: number }
>;

const TIMING_METRICS: Record<keyof BrainTimes, string> = {
  audit: 'caesar_audit_append_duration_seconds',
  dispatch: 'caesar_dispatch_duration_seconds',
  call: 'caesar_tool_call_duration_seconds',
  http: 'caesar_http_request_duration_seconds',
};

export async function brainTimes(url: string, token: string): Promise<BrainTimes> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const read = (name: string, what: 'sum' | 'count') => {
    let total = 0;
    for (const m of text.matchAll(new RegExp(`^${name}_${what}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
      total += Number(m[1]);
    return total;
  };
  const out = {} as BrainTimes;
  for (const [k, name] of Object.entries(TIMING_METRICS)) {
    out[k as keyof BrainTimes] = { sum: read(name, 'sum'), count: read(name, 'count') };
  }
  return out;
}

/** Mean of each timing between two scrapes, microseconds. */
export function meanBetween(a: BrainTimes, b: BrainTimes): Record<keyof BrainTimes, number> {
  const mean = (k: keyof BrainTimes) =>
    ((b[k].sum - a[k].sum) / Math.max(1, b[k].count - a[k].count)) * 1e6;
  return {
    audit: mean('audit'),
    dispatch: mean('dispatch'),
    call: mean('call'),
    http: mean('http'),
  };
}

/**
 * Asks `GET /healthz` one request at a time (a keep-alive connection, a 2 ms pause between
 * requests) until stopped, and returns each latency in microseconds: what a health checker
 * sees while the brain works. Issue 13, target 2: p99 under 5 ms while the log commits
 * under load.
 */
export function probeHealthz(url: string): { stop(): Promise<number[]> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL('/healthz', url);
  const latencies: number[] = [];
  let running = true;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.get(target, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`/healthz answered ${res.statusCode}`));
          latencies.push((performance.now() - t0) * 1000);
          resolve();
        });
      });
      req.on('error', reject);
    });
  const loop = (async () => {
    while (running) {
      await once();
      await sleep(2);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return latencies;
    },
  };
}
