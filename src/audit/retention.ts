import type { Database } from 'better-sqlite3';
import type { Appended, HashChain } from './chain.js';
import type { AuditPayload } from './events.js';
import type { ClampLimits } from './limits.js';
import { buildRow } from './row.js';

/**
 * Retention: deletes the oldest rows in one transaction and, in the same transaction,
 * appends an `audit.retention` row carrying the seq and hash of the last deleted row. That
 * row is the anchor `verify()` uses for the first surviving row's `prev_hash`, so the chain
 * stays verifiable across any number of sweeps. Only a prefix of the chain is ever deleted:
 * everything from the first row at or after the cutoff is kept, even if a clock step made a
 * later row look older.
 */

export interface RetentionResult {
  readonly deleted: number;
  readonly cutoff: string;
  readonly firstDeletedSeq?: number;
  readonly lastDeletedSeq?: number;
  /** The `audit.retention` row, when anything was deleted. */
  readonly event?: Appended;
}

const RETENTION_ACTOR = 'audit';

interface Boundary {
  first: number;
  last: number;
  lastHash: string;
}

function findBoundary(db: Database, cutoff: string): Boundary | undefined {
  const keepFrom = db
    .prepare('SELECT min(seq) AS seq FROM audit_events WHERE ts >= ?')
    .get(cutoff) as { seq: number | null };
  const last = db
    .prepare(
      keepFrom.seq === null
        ? 'SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1'
        : 'SELECT seq, hash FROM audit_events WHERE seq < ? ORDER BY seq DESC LIMIT 1',
    )
    .get(...(keepFrom.seq === null ? [] : [keepFrom.seq])) as
    { seq: number; hash: string } | undefined;
  if (last === undefined) return undefined;
  const first = db.prepare('SELECT min(seq) AS seq FROM audit_events').get() as { seq: number };
  return { first: first.seq, last: last.seq, lastHash: last.hash };
}

function deletePrefix(db: Database, lastSeq: number): number {
  db.prepare('UPDATE audit_guard SET retention_open = 1 WHERE id = 1').run();
  const { changes } = db.prepare('DELETE FROM audit_events WHERE seq <= ?').run(lastSeq);
  db.prepare('UPDATE audit_guard SET retention_open = 0 WHERE id = 1').run();
  return changes;
}

interface SweepOptions {
  readonly days: number;
  readonly now: Date;
  readonly limits: ClampLimits;
}

/** One sweep. Deletes nothing (and writes no row) when no row is older than the cutoff. */
export function sweep(db: Database, chain: HashChain, opts: SweepOptions): RetentionResult {
  const cutoff = new Date(opts.now.getTime() - opts.days * 86_400_000).toISOString();
  const result = chain.transaction((): RetentionResult => {
    const b = findBoundary(db, cutoff);
    if (b === undefined) return { deleted: 0, cutoff };
    const deleted = deletePrefix(db, b.last);
    const payload: AuditPayload<'audit.retention'> = {
      retention_days: opts.days,
      cutoff,
      deleted,
      first_deleted_seq: b.first,
      last_deleted_seq: b.last,
      last_deleted_hash: b.lastHash,
    };
    // The log's own row, from its own numbers: typed against the catalogue, not parsed by
    // its zod schema, which the writer thread does not load (ADR 0048).
    const row = buildRow(
      {
        ts: opts.now.toISOString(),
        eventType: 'audit.retention',
        actor: RETENTION_ACTOR,
        outcome: 'ok',
        payload,
      },
      opts.limits,
    );
    const [event] = chain.insert([row]);
    return { deleted, cutoff, firstDeletedSeq: b.first, lastDeletedSeq: b.last, event };
  });
  return result;
}
