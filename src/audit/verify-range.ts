import { hash as digest } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';

/**
 * The row-by-row check of a seq range, shared by the sequential walk and the worker threads
 * of a parallel one. Checks, for each row: the seq follows the previous one, `prev_hash`
 * equals the previous row's `hash` (or the expected value the range starts from), the
 * payload is JSON, and `hash` equals sha256(prev_hash ‖ canonical row).
 */

type VerifyFailureReason =
  'missing_rows' | 'missing_anchor' | 'prev_hash_mismatch' | 'hash_mismatch' | 'payload_not_json';

export interface VerifyFailure {
  readonly ok: false;
  /** Rows verified before the failure. */
  readonly rows: number;
  /** The first seq that does not check out (for a deletion: the first missing seq). */
  readonly badSeq: number;
  readonly reason: VerifyFailureReason;
  readonly detail: string;
}

/** A range that checked out. `firstPrev` is what its first row chains to. */
interface RangeOk {
  readonly ok: true;
  readonly rows: number;
  readonly firstPrev: string | null;
  readonly lastHash: string | null;
}

export type RangeResult = RangeOk | VerifyFailure;

const CHUNK = 8192;
const HASH_HEX = 64;

/**
 * The canonical row built inside SQLite: the same text as `canonicalRow()` (json_quote
 * escapes exactly as JSON.stringify does, and gives `null` for NULL). A test holds the two
 * equal for arbitrary column text.
 */
export const CANONICAL_ROW_SQL =
  `concat('{"actor":', json_quote(actor), ',"decision_id":', json_quote(decision_id), ` +
  `',"event_type":', json_quote(event_type), ',"outcome":', json_quote(outcome), ` +
  `',"payload":', payload, ` +
  `iif(principal IS NULL, '', concat(',"principal":', json_quote(principal))), ` +
  `',"seq":', seq, ',"session_id":', json_quote(session_id), ` +
  `',"tool":', json_quote(tool), ',"ts":', json_quote(ts), '}')`;

/**
 * One string per row, so SQLite hands JavaScript a single value instead of nine columns
 * (reading is most of the cost): `<seq> <flags> <hash> <prev_hash><canonical row>`. The hash
 * input `prev_hash ‖ canonical row` is then a plain suffix of it. `flags` has bit 0 set when
 * the payload is valid JSON, bit 1 when prev_hash and bit 2 when hash are 64 characters, so
 * the fixed offsets below are right for every row whose flags are 7.
 */
const SELECT_CHUNK =
  `SELECT concat(seq, ' ', json_valid(payload) + 2 * (length(prev_hash) = 64) + ` +
  `4 * (length(hash) = 64), ' ', hash, ' ', prev_hash, ${CANONICAL_ROW_SQL}) ` +
  `FROM audit_events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ${CHUNK}`;

/** chainHash() over the ready-made `prev_hash ‖ canonical row` suffix. */
const sha256Hex = (text: string): string => digest('sha256', text, 'hex');

export function failure(
  rows: number,
  badSeq: number,
  reason: VerifyFailureReason,
  detail: string,
): VerifyFailure {
  return { ok: false, rows, badSeq, reason, detail };
}

/** Walks `from..to` (inclusive) a chunk at a time; the caller decides when to yield. */
export class RangeWalker {
  readonly #stmt: Statement;
  readonly #to: number;
  #expectedSeq: number;
  /** null: the range starts mid-chain; its first row's prev_hash is taken as given. */
  #expectedPrev: string | null;
  #firstPrev: string | null = null;
  #rows = 0;
  #result: RangeResult | undefined;

  constructor(db: Database, from: number, to: number, expectedPrev: string | null) {
    this.#stmt = db.prepare(SELECT_CHUNK).pluck();
    this.#expectedSeq = from;
    this.#to = to;
    this.#expectedPrev = expectedPrev;
  }

  get rows(): number {
    return this.#rows;
  }

  /** Checks the next chunk. Returns the result once the range is done or failed. */
  step(): RangeResult | undefined {
    if (this.#result) return this.#result;
    const lines = this.#stmt.all(this.#expectedSeq - 1, this.#to) as string[];
    for (const line of lines) {
      const bad = this.#check(line);
      if (bad) return (this.#result = bad);
    }
    if (lines.length === CHUNK) return undefined;
    if (this.#expectedSeq <= this.#to) {
      const detail = `row(s) ${this.#expectedSeq}..${this.#to} missing (end of the log)`;
      return (this.#result = failure(this.#rows, this.#expectedSeq, 'missing_rows', detail));
    }
    const lastHash = this.#rows === 0 ? null : this.#expectedPrev;
    return (this.#result = { ok: true, rows: this.#rows, firstPrev: this.#firstPrev, lastHash });
  }

  /** Runs the walk to the end without yielding (worker threads). */
  run(): RangeResult {
    for (;;) {
      const r = this.step();
      if (r) return r;
    }
  }

  #check(line: string): VerifyFailure | undefined {
    const space = line.indexOf(' ');
    const seq = Number(line.slice(0, space));
    if (seq !== this.#expectedSeq) {
      const from = this.#expectedSeq;
      const missing = seq - 1 > from ? `${from}..${seq - 1}` : String(from);
      return failure(
        this.#rows,
        from,
        'missing_rows',
        `row(s) ${missing} missing (next row is ${seq})`,
      );
    }
    const flags = line.charCodeAt(space + 1) - 48;
    const hashAt = space + 3;
    const prevAt = hashAt + HASH_HEX + 1;
    if (flags !== 7) return this.#flagFailure(seq, flags);
    const prev = line.slice(prevAt, prevAt + HASH_HEX);
    if (this.#rows === 0) this.#firstPrev = prev;
    if (this.#expectedPrev !== null && prev !== this.#expectedPrev) {
      const detail = `prev_hash ${prev} does not match ${this.#expectedPrev}`;
      return failure(this.#rows, seq, 'prev_hash_mismatch', detail);
    }
    const stored = line.slice(hashAt, hashAt + HASH_HEX);
    const computed = sha256Hex(line.slice(prevAt));
    if (computed !== stored) {
      const detail = `content changed: stored hash ${stored}, computed ${computed}`;
      return failure(this.#rows, seq, 'hash_mismatch', detail);
    }
    this.#expectedSeq = seq + 1;
    this.#expectedPrev = computed;
    this.#rows += 1;
    return undefined;
  }

  #flagFailure(seq: number, flags: number): VerifyFailure {
    if ((flags & 1) === 0)
      return failure(this.#rows, seq, 'payload_not_json', 'payload is not valid JSON');
    if ((flags & 2) === 0)
      return failure(this.#rows, seq, 'prev_hash_mismatch', 'prev_hash is malformed');
    return failure(this.#rows, seq, 'hash_mismatch', 'hash is malformed');
  }
}
