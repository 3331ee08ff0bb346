/**
 * The audit log at 100 k, 1 M and 10 M rows (issue 13, target 7): durable append rate,
 * query p50 (by decision id, and the newest page), and full-chain verify rate, each per
 * size. Logs are built once with a real hash chain into `<tmpdir>/caesar-bench-scale/` and
 * reused by later runs (the 10 M-row file takes a few minutes and ~3 GB); appends made by
 * a run extend the chain, so the cached file stays a valid log.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuditReader,
  canonicalRow,
  chainHash,
  GENESIS_HASH,
  insertStored,
  openAuditLog,
  prepareInsert,
  type AnyAuditEventInput,
} from '../src/audit/index.js';
import { benchSize, percentile, SMOKE } from './harness.js';

/** Built logs are kept here between runs; a smoke run builds its own every time, in its own. */
export const CACHE_DIR = SMOKE
  ? join(tmpdir(), `caesar-bench-scale-smoke-${process.pid}`)
  : join(tmpdir(), 'caesar-bench-scale');
/** Bump when the rows the builder writes change: older cached files are rebuilt. */
const BUILD_VERSION = 1;
const CHUNK = 100_000;
const APPEND_CALLERS = 64;
const APPEND_MS = benchSize(1500, 100);
const LOOKUPS = benchSize(2_000, 50);
const noTimer = { retention: { days: 0, intervalMs: 0 } };

/** The decision id of row `seq`: time-ordered, as the brain's UUIDv7s are. */
const idOf = (seq: number) => `0190aaaa0000-7${seq.toString(16).padStart(19, '0')}`;

export interface AuditScale {
  rows: number;
  buildSeconds: number | undefined;
  openMs: number;
  appendsPerSecond: number;
  lookupP50Ms: number;
  newestPageP50Ms: number;
  verifyRowsPerSecond: number;
  /** `counts()` (what `caesar audit stats` and `GET /v1/audit/counts` run): a full scan. */
  countsMs: number;
  fileBytes: number;
}

/** Builds (or finds in the cache) a log of `rows` rows; returns its path and build time. */
async function cachedLog(rows: number, progress: (line: string) => void) {
  mkdirSync(CACHE_DIR, { recursive: true });
  const path = join(CACHE_DIR, `audit-${rows}.db`);
  const marker = `${path}.built`;
  const stamp = JSON.stringify({ version: BUILD_VERSION, rows });
  if (existsSync(marker) && readFileSync(marker, 'utf8') === stamp) {
    return { path, buildSeconds: undefined };
  }
  for (const f of [path, `${path}-wal`, `${path}-shm`, marker]) rmSync(f, { force: true });
  const t0 = performance.now();
  await buildLog(path, rows, progress);
  writeFileSync(marker, stamp);
  return { path, buildSeconds: (performance.now() - t0) / 1000 };
}

/** Bulk build with a real chain: no fsync, big transactions, indexes made after the load. */
async function buildLog(
  path: string,
  rows: number,
  progress: (line: string) => void,
): Promise<void> {
  await openAuditLog({ path, ...noTimer }).close(); // the real schema and indexes
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
      .all() as Array<{ name: string; sql: string }>;
    for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);
    const insert = prepareInsert(db);
    const t0 = Date.parse('2025-01-01T00:00:00.000Z');
    let prev = GENESIS_HASH;
    const fill = db.transaction((from: number, to: number) => {
      for (let seq = from; seq <= to; seq++) {
        const row = {
          seq,
          ts: new Date(t0 + seq * 10).toISOString(),
          eventType: seq % 2 ? 'tool.called' : 'tool.result',
          decisionId: idOf(seq),
          sessionId: `s-${seq % 1000}`,
          tool: `tool_${seq % 50}`,
          actor: 'token:bench',
          outcome: seq % 2 ? 'allowed' : 'ok',
          payload: `{"input":{"expression":"${seq} * 23"},"n":${seq}}`,
        };
        const hash = chainHash(prev, canonicalRow(row));
        insertStored(insert, { ...row, prevHash: prev, hash, principal: null });
        prev = hash;
      }
    });
    const label = `building a ${rows.toLocaleString('en-US')}-row audit log`;
    for (let from = 1; from <= rows; from += CHUNK) {
      const to = Math.min(rows, from + CHUNK - 1);
      fill(from, to);
      if (to % 1_000_000 === 0) progress(`${label}: ${to.toLocaleString('en-US')} rows`);
    }
    for (const ix of indexes) {
      progress(`${label}: index ${ix.name}`);
      db.exec(ix.sql);
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

function event(i: number): AnyAuditEventInput {
  return {
    type: 'tool.called',
    actor: 'token:bench',
    tool: 'calculator',
    decisionId: `0190bbbb${Date.now().toString(16)}-7${i.toString(16).padStart(19, '0')}`,
    sessionId: `s-${i % 16}`,
    payload: {
      input: { expression: `${i} * 23` },
      decision: { allowed: true, reason: 'listed', rule: 'r', policy_sha256: 'a'.repeat(64) },
    },
  };
}

/** 64 callers appending durably for APPEND_MS; also how long opening the log took. */
async function appendRate(path: string): Promise<{ perSecond: number; openMs: number }> {
  const t0 = performance.now();
  const log = openAuditLog({ path, ...noTimer });
  const openMs = performance.now() - t0;
  try {
    let done = 0;
    const start = performance.now();
    const end = start + APPEND_MS;
    await Promise.all(
      Array.from({ length: APPEND_CALLERS }, async () => {
        while (performance.now() < end) await log.append(event(done++));
      }),
    );
    return { perSecond: done / ((performance.now() - start) / 1000), openMs };
  } finally {
    await log.close();
  }
}

export async function measureAuditAt(
  rows: number,
  progress: (line: string) => void,
): Promise<AuditScale> {
  const { path, buildSeconds } = await cachedLog(rows, progress);
  const { perSecond, openMs } = await appendRate(path);
  using reader = AuditReader.open(path);
  const lookups: number[] = [];
  const pages: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const seq = 1 + ((i * 7_919_993) % rows);
    let t = performance.now();
    const found = reader.query({ decisionId: idOf(seq) });
    lookups.push(performance.now() - t);
    if (found.length !== 1) throw new Error(`lookup of row ${seq} found ${found.length} rows`);
    t = performance.now();
    reader.query({ limit: 50 });
    pages.push(performance.now() - t);
  }
  const t0 = performance.now();
  const report = await reader.verify();
  if (!report.ok) throw new Error(`verify failed: ${JSON.stringify(report)}`);
  const verifyRowsPerSecond = report.rows / ((performance.now() - t0) / 1000);
  const t1 = performance.now();
  reader.counts();
  const countsMs = performance.now() - t1;
  return {
    rows,
    buildSeconds,
    openMs,
    appendsPerSecond: perSecond,
    lookupP50Ms: percentile(lookups, 50),
    newestPageP50Ms: percentile(pages, 50),
    verifyRowsPerSecond,
    countsMs,
    fileBytes: statSync(path).size,
  };
}
