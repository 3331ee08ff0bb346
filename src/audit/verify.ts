import { availableParallelism } from 'node:os';
import type { Database } from 'better-sqlite3';
import { compiledScriptUrl, startThread, threadExitText } from '../process/index.js';
import { GENESIS_HASH } from './canonical.js';
import { failure, RangeWalker, type RangeResult, type VerifyFailure } from './verify-range.js';
import type { RangeJob } from './verify-thread.js';

/**
 * Chain verification. Walks every row in seq order (see verify-range.ts for the checks). The
 * first row's anchor is the genesis hash when it is seq 1, else the `last_deleted_hash` of
 * the `audit.retention` row that recorded the deletion of everything before it. Large logs
 * are split into seq ranges checked by worker threads, each on its own connection; the
 * ranges' boundary hashes are then checked to link up. Any failure found in parallel is
 * confirmed by a sequential walk on one snapshot before it is reported.
 */

export type VerifyReport =
  | {
      readonly ok: true;
      readonly rows: number;
      readonly firstSeq: number | null;
      readonly lastSeq: number | null;
      /** The hash of the newest row: record it elsewhere to detect truncation later. */
      readonly headHash: string | null;
      readonly anchor: 'genesis' | 'retention' | 'empty';
      /** Threads that walked the chain (1: this one). */
      readonly threads: number;
    }
  | VerifyFailure;

/**
 * The hash of row `seq` as recorded by the newest `audit.retention` row whose
 * `last_deleted_seq` it was; undefined when no sweep recorded it.
 */
export function retiredHash(db: Database, seq: number): string | undefined {
  const row = db
    .prepare(
      "SELECT json_extract(payload, '$.last_deleted_hash') AS h FROM audit_events " +
        "WHERE event_type = 'audit.retention' AND json_valid(payload) " +
        "AND json_extract(payload, '$.last_deleted_seq') = ? ORDER BY seq DESC LIMIT 1",
    )
    .get(seq) as { h: unknown } | undefined;
  return typeof row?.h === 'string' ? row.h : undefined;
}

/** Finds what the first surviving row must chain to. */
function anchorFor(db: Database, firstSeq: number): { hash: string } | VerifyFailure {
  if (firstSeq === 1) return { hash: GENESIS_HASH };
  const anchor = retiredHash(db, firstSeq - 1);
  if (anchor === undefined) {
    return failure(
      0,
      1,
      'missing_anchor',
      `rows 1..${firstSeq - 1} are missing and no audit.retention row records their deletion`,
    );
  }
  return { hash: anchor };
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Logs smaller than this are walked on one thread: starting workers costs more. */
const PARALLEL_MIN_ROWS = 200_000;

export interface VerifyOptions {
  /** Called after each chunk with the number of rows checked so far (sequential walk). */
  readonly onProgress?: (rows: number) => void;
  /**
   * Worker threads for the walk. @default min(4, cores) for logs of 200,000 rows or more,
   * else 1. An explicit value above 1 always splits the walk.
   */
  readonly threads?: number;
  /** The database file, needed to split the walk over threads (each opens its own). */
  readonly path?: string;
}

interface Span {
  readonly first: number;
  readonly last: number;
}

function span(db: Database): Span | undefined {
  const r = db.prepare('SELECT min(seq) AS first, max(seq) AS last FROM audit_events').get() as {
    first: number | null;
    last: number | null;
  };
  return r.first === null || r.last === null ? undefined : { first: r.first, last: r.last };
}

function success(s: Span, rows: number, head: string | null, threads: number): VerifyReport {
  const anchor = s.first === 1 ? 'genesis' : 'retention';
  return { ok: true, rows, firstSeq: s.first, lastSeq: s.last, headHash: head, anchor, threads };
}

async function walkSequential(
  db: Database,
  s: Span,
  anchor: string,
  opts: VerifyOptions,
): Promise<VerifyReport> {
  const walker = new RangeWalker(db, s.first, s.last, anchor);
  for (;;) {
    const r = walker.step();
    if (r) return r.ok ? success(s, r.rows, r.lastHash, 1) : r;
    opts.onProgress?.(walker.rows);
    await yieldToLoop();
  }
}

/** One range on a thread running the compiled verify-thread.js; a thread that fails rejects. */
function runInWorker(script: URL, job: RangeJob): Promise<RangeResult> {
  const thread = startThread(script, { workerData: job });
  return new Promise((resolve, reject) => {
    thread.onMessage((msg) => {
      resolve(msg as RangeResult);
      void thread.terminate();
    });
    // an exit before any answer fails the walk, never hangs it (after one, this is a no-op)
    thread.onExit((exit) => reject(new Error(`verify thread ended: ${threadExitText(exit)}`)));
  });
}

/** Joins range results in seq order: the first failure, or a broken link between ranges. */
function merge(s: Span, ranges: readonly RangeJob[], results: readonly RangeResult[]) {
  let rows = 0;
  let prevHash: string | null = null;
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as RangeResult;
    if (!r.ok) return { ...r, rows: rows + r.rows };
    if (i > 0 && r.firstPrev !== null && r.firstPrev !== prevHash) {
      const seq = (ranges[i] as RangeJob).from;
      const detail = `prev_hash ${r.firstPrev} does not match ${String(prevHash)}`;
      return failure(rows, seq, 'prev_hash_mismatch', detail);
    }
    rows += r.rows;
    prevHash = r.lastHash ?? prevHash;
  }
  return success(s, rows, prevHash, ranges.length);
}

async function walkParallel(
  path: string,
  s: Span,
  anchor: string,
  threads: number,
): Promise<VerifyReport | undefined> {
  const size = Math.ceil((s.last - s.first + 1) / threads);
  const ranges: RangeJob[] = [];
  for (let from = s.first; from <= s.last; from += size) {
    const to = Math.min(s.last, from + size - 1);
    ranges.push({ path, from, to, expectedPrev: ranges.length === 0 ? anchor : null });
  }
  // Beside this module under dist/, or its compiled twin when run from sources (vitest); a
  // missing build throws here rather than quietly walking on one thread.
  const script = compiledScriptUrl(import.meta.url, './verify-thread.js');
  try {
    return merge(s, ranges, await Promise.all(ranges.map((job) => runInWorker(script, job))));
  } catch {
    return undefined; // a thread failed (e.g. could not start): walk here instead
  }
}

function threadsFor(s: Span, opts: VerifyOptions): number {
  if (opts.path === undefined) return 1;
  if (opts.threads !== undefined) return Math.max(1, Math.floor(opts.threads));
  return s.last - s.first + 1 >= PARALLEL_MIN_ROWS ? Math.min(4, availableParallelism()) : 1;
}

/**
 * Verifies the whole chain on `db` (a connection used for nothing else meanwhile: the walk
 * holds one read transaction, a consistent snapshot while the brain appends, and yields to
 * the event loop between chunks).
 */
export async function verifyChain(db: Database, opts: VerifyOptions = {}): Promise<VerifyReport> {
  db.exec('BEGIN');
  try {
    const s = span(db);
    if (s === undefined) {
      const empty = { rows: 0, firstSeq: null, lastSeq: null, headHash: null };
      return { ok: true, ...empty, anchor: 'empty', threads: 1 };
    }
    const anchor = anchorFor(db, s.first);
    if ('ok' in anchor) return anchor;
    const threads = threadsFor(s, opts);
    if (threads > 1 && opts.path !== undefined) {
      const report = await walkParallel(opts.path, s, anchor.hash, threads);
      // A parallel failure is confirmed on this snapshot (workers read their own).
      if (report?.ok) return report;
    }
    return await walkSequential(db, s, anchor.hash, opts);
  } finally {
    db.exec('COMMIT');
  }
}
