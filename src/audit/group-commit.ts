import type { Logger } from '../log/index.js';
import type { Appended, HashChain } from './chain.js';
import { AuditWriteError } from './errors.js';
import type { PreparedRow } from './prepare.js';

/**
 * Group commit. `enqueue` parks a prepared row; one flush per event-loop turn (scheduled with
 * setImmediate, so every append made in the same tick and its microtasks joins) writes up to
 * `maxBatch` rows in one transaction and resolves their promises only after COMMIT returned,
 * that is after SQLite fsynced the WAL (`synchronous=FULL`). A larger backlog is written in
 * several transactions, one per turn, so the event loop is never blocked for long.
 */

interface Pending {
  readonly row: PreparedRow;
  readonly resolve: (r: Appended) => void;
  readonly reject: (e: Error) => void;
}

export interface WriterStats {
  /** Rows made durable since open. */
  readonly rows: number;
  /** Transactions committed since open. */
  readonly batches: number;
  /** Largest batch committed. */
  readonly maxBatch: number;
  /** Appends rejected with AuditWriteError since open. */
  readonly failures: number;
  /** Rows waiting for the next flush. */
  readonly pending: number;
}

export class GroupCommitWriter {
  readonly #chain: HashChain;
  readonly #maxBatch: number;
  readonly #log: Logger;
  #queue: Pending[] = [];
  #scheduled = false;
  #idle: Array<() => void> = [];
  #stats = { rows: 0, batches: 0, maxBatch: 0, failures: 0 };

  /**
   * Runs before every transaction and throws to refuse it: the batch is rejected without
   * SQLite touching the file (see `unwritableReason`).
   */
  readonly #preflight: () => void;

  constructor(chain: HashChain, maxBatch: number, log: Logger, preflight: () => void = () => {}) {
    this.#chain = chain;
    this.#maxBatch = maxBatch;
    this.#log = log;
    this.#preflight = preflight;
  }

  enqueue(row: PreparedRow): Promise<Appended> {
    return new Promise<Appended>((resolve, reject) => {
      this.#queue.push({ row, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  stats(): WriterStats {
    return { ...this.#stats, pending: this.#queue.length };
  }

  /** Resolves once every row enqueued so far has been committed or rejected. */
  drain(): Promise<void> {
    if (this.#queue.length === 0 && !this.#scheduled) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  readonly #flush = (): void => {
    const batch =
      this.#queue.length <= this.#maxBatch ? this.#queue : this.#queue.slice(0, this.#maxBatch);
    this.#queue = batch === this.#queue ? [] : this.#queue.slice(this.#maxBatch);
    if (this.#queue.length > 0) setImmediate(this.#flush);
    else this.#scheduled = false;
    this.#commit(batch);
    if (!this.#scheduled) this.#notifyIdle();
  };

  #commit(batch: Pending[]): void {
    try {
      this.#preflight();
    } catch (err) {
      this.#fail(batch, err, false);
      return;
    }
    let results: Appended[];
    try {
      const rows = batch.map((p) => p.row);
      results = this.#chain.transaction(() => this.#chain.insert(rows));
    } catch (err) {
      this.#fail(batch, err);
      return;
    }
    this.#stats.rows += batch.length;
    this.#stats.batches += 1;
    if (batch.length > this.#stats.maxBatch) this.#stats.maxBatch = batch.length;
    for (let i = 0; i < batch.length; i++) (batch[i] as Pending).resolve(results[i] as Appended);
  }

  /** Rejects the batch; `resync` when a transaction ran and its outcome is not certain. */
  #fail(batch: Pending[], err: unknown, resync = true): void {
    const reason = err instanceof Error ? err.message : String(err);
    const error = new AuditWriteError(`audit log write failed: ${reason}`, {
      cause: err,
      batchSize: batch.length,
    });
    this.#stats.failures += batch.length;
    this.#log.error(
      { err, batchSize: batch.length, sqliteCode: error.sqliteCode },
      'audit append failed',
    );
    for (const p of batch) p.reject(error);
    if (!resync) return;
    try {
      this.#chain.resync();
    } catch (resyncErr) {
      this.#log.error({ err: resyncErr }, 'audit log unreadable after a failed append');
    }
  }

  #notifyIdle(): void {
    const waiters = this.#idle;
    this.#idle = [];
    for (const w of waiters) w();
  }
}
