import type { Database } from 'better-sqlite3';
import { retiredHash } from './verify.js';

/**
 * Truncation and rewrite checks against a chain head recorded elsewhere. The chain proves
 * that rows agree with each other; it cannot tell that the newest rows were cut off or that
 * the whole file was rebuilt with a fresh chain. A `seq:hash` pair written down earlier
 * (by `caesar audit verify`, the brain's log or a cron job on another host) can: that row
 * must still be there with that hash.
 */

/** A head recorded earlier: the row `seq` had hash `hash`. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * `truncated`: the log ends before `seq`. `rewritten`: row `seq` has another hash.
 * `retired`: retention deleted row `seq` and no `audit.retention` row recorded its hash, so
 * it cannot be checked (record a newer head).
 */
type HeadFailureReason = 'truncated' | 'rewritten' | 'retired';

export type HeadCheck =
  | { readonly ok: true; readonly seq: number; readonly hash: string }
  | {
      readonly ok: false;
      readonly seq: number;
      readonly hash: string;
      readonly reason: HeadFailureReason;
      readonly detail: string;
    };

const HEAD_PATTERN = /^([1-9][0-9]{0,15}):([0-9a-f]{64})$/;

/** Parses `SEQ:HASH` (HASH: 64 lower-case hex digits); undefined when malformed. */
export function parseChainHead(text: string): ChainHead | undefined {
  const m = HEAD_PATTERN.exec(text.trim());
  if (!m) return undefined;
  const seq = Number(m[1]);
  return Number.isSafeInteger(seq) ? { seq, hash: m[2] as string } : undefined;
}

export function checkHead(db: Database, expected: ChainHead): HeadCheck {
  const { seq, hash } = expected;
  const fail = (reason: HeadFailureReason, detail: string): HeadCheck => ({
    ok: false,
    seq,
    hash,
    reason,
    detail,
  });
  const row = db.prepare('SELECT hash FROM audit_events WHERE seq = ?').get(seq) as
    { hash: string } | undefined;
  if (row) {
    return row.hash === hash
      ? { ok: true, seq, hash }
      : fail('rewritten', `row ${seq} has hash ${row.hash}, but ${hash} was recorded`);
  }
  const span = db.prepare('SELECT MIN(seq) AS first, MAX(seq) AS last FROM audit_events').get() as {
    first: number | null;
    last: number | null;
  };
  if (span.last === null || span.last < seq) {
    const ends = span.last === null ? 'the log is empty' : `the log ends at seq ${span.last}`;
    return fail('truncated', `${ends}, but row ${seq} was recorded with hash ${hash}`);
  }
  if (span.first !== null && seq < span.first) {
    const retired = retiredHash(db, seq);
    if (retired !== undefined) {
      return retired === hash
        ? { ok: true, seq, hash }
        : fail(
            'rewritten',
            `retention recorded row ${seq}'s hash as ${retired}, but ${hash} was recorded`,
          );
    }
    return fail(
      'retired',
      `retention deleted row ${seq} (the log starts at seq ${span.first}), so it cannot be checked; record a newer head`,
    );
  }
  // inside the span but absent: a deleted row, which verify() reports as a gap first
  return fail('rewritten', `row ${seq} is missing from the log`);
}
