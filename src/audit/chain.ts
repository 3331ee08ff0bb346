import type { Database, Statement } from 'better-sqlite3';
import { chainHash, GENESIS_HASH, type ChainedRow } from './canonical.js';
import type { PreparedRow } from './row.js';

/**
 * The writer's side of the hash chain. Holds the tip (last seq and hash) in memory, assigns
 * seqs and hashes inside a transaction, and advances the tip only after the transaction
 * committed, so a failed commit leaves memory and disk in agreement.
 */

export interface ChainTip {
  readonly seq: number;
  readonly hash: string;
}

export interface Appended {
  readonly seq: number;
  readonly hash: string;
  readonly ts: string;
}

const INSERT_SQL =
  'INSERT INTO audit_events (seq, ts, event_type, decision_id, session_id, tool, actor, ' +
  'outcome, payload, prev_hash, hash, principal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** One row as stored: every column of `audit_events`, hashes already computed. */
export interface StoredRow extends ChainedRow {
  readonly prevHash: string;
  readonly hash: string;
  readonly principal: string | null;
}

/**
 * The one place a row's columns meet the INSERT: the chain appends through it, and so do
 * `npm run bench`'s raw-insert baselines, which therefore follow every column the log gains.
 * `prepare` the statement once per connection and pass it to {@link insertStored}.
 */
export function prepareInsert(db: Database): Statement {
  return db.prepare(INSERT_SQL);
}

/** Runs an INSERT from {@link prepareInsert} with `row`'s columns. */
export function insertStored(insert: Statement, row: StoredRow): void {
  insert.run(
    row.seq,
    row.ts,
    row.eventType,
    row.decisionId,
    row.sessionId,
    row.tool,
    row.actor,
    row.outcome,
    row.payload,
    row.prevHash,
    row.hash,
    row.principal,
  );
}

export function readTip(db: Database): ChainTip {
  const row = db.prepare('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1').get() as
    { seq: number; hash: string } | undefined;
  return row ?? { seq: 0, hash: GENESIS_HASH };
}

export class HashChain {
  #db: Database;
  #insert: Statement;
  #begin: Statement;
  #commit: Statement;
  #rollback: Statement;
  #tip: ChainTip;
  /** Tip staged by the open transaction; undefined outside one. */
  #staged: ChainTip | undefined;

  constructor(db: Database) {
    this.#db = db;
    this.#insert = prepareInsert(db);
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#tip = readTip(db);
  }

  /** Moves to a new connection of the same file (the writer reopened it) and re-reads the tip. */
  reattach(db: Database): void {
    const tip = readTip(db);
    this.#insert = prepareInsert(db);
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#db = db;
    this.#tip = tip;
  }

  get tip(): ChainTip {
    return this.#tip;
  }

  /** Re-reads the tip from disk, after a failed commit whose outcome is not certain. */
  resync(): void {
    this.#tip = readTip(this.#db);
  }

  /** True between `begin` and `commit` or `rollback`. */
  get open(): boolean {
    return this.#staged !== undefined;
  }

  /** Starts an IMMEDIATE transaction that `insert` appends to. */
  begin(): void {
    if (this.#staged !== undefined) throw new Error('HashChain.begin inside a transaction');
    this.#begin.run();
    this.#staged = this.#tip;
  }

  /** Commits; the in-memory tip moves only if COMMIT returned. On error nothing moves. */
  commit(): void {
    const staged = this.#staged;
    if (staged === undefined) throw new Error('HashChain.commit outside a transaction');
    this.#commit.run();
    this.#tip = staged;
    this.#staged = undefined;
  }

  /** Rolls back if SQLite still holds the transaction; the tip stays where it was. */
  rollback(): void {
    this.#staged = undefined;
    if (this.#db.inTransaction) this.#rollback.run();
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction; `fn` appends with `insert`. The in-memory tip
   * moves only if the commit succeeds.
   */
  transaction<R>(fn: () => R): R {
    this.begin();
    try {
      const result = fn();
      this.commit();
      return result;
    } catch (err) {
      this.rollback();
      throw err;
    }
  }

  /** Appends rows in order; only valid inside a transaction (`begin` or `transaction`). */
  insert(rows: readonly PreparedRow[]): Appended[] {
    let tip = this.#staged;
    if (tip === undefined) throw new Error('HashChain.insert outside a transaction');
    const out: Appended[] = new Array<Appended>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as PreparedRow;
      const seq: number = tip.seq + 1;
      const hash = chainHash(tip.hash, row.head + String(seq) + row.tail);
      insertStored(this.#insert, {
        seq,
        ts: row.ts,
        eventType: row.eventType,
        decisionId: row.decisionId,
        sessionId: row.sessionId,
        tool: row.tool,
        actor: row.actor,
        outcome: row.outcome,
        payload: row.payload,
        prevHash: tip.hash,
        hash,
        principal: row.principal,
      });
      tip = { seq, hash };
      out[i] = { seq, hash, ts: row.ts };
    }
    this.#staged = tip;
    return out;
  }
}
