import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Logger } from '../log/index.js';
import { readTip, type Appended, type ChainTip } from './chain.js';
import { openWriterConnection } from './connection.js';
import { AuditClosedError, AuditError, AuditEventError, AuditOpenError } from './errors.js';
import type { AppendableEventType, AuditEventInput } from './events.js';
import { acquireLock, lockPathFor, type WriterLock } from './lock.js';
import {
  resolveAuditLogOptions,
  type AuditLogOptions,
  type ResolvedAuditLogOptions,
} from './options.js';
import { prepareRow } from './prepare.js';
import { AuditReadable } from './reader.js';
import type { RetentionResult } from './retention.js';
import { WriterClient, type WriterStats } from './writer-client.js';
import { unwritableReason } from '../files/index.js';

const FIRST_SWEEP_DELAY_MS = 10_000;

/** What `append` resolves with once the row is durable. */
export type AppendResult = Appended;

/**
 * The audit log as the brain uses it: the single writer of one SQLite file. `append`
 * prepares the row here (so a bad event is rejected alone) and resolves only when the
 * writer thread has committed it, rejecting with `AuditWriteError` when it cannot be, so
 * callers fail closed. The writes and their fsyncs run in that thread (ADR 0020); reads,
 * verification and backup use this thread's own connection.
 */
export class AuditLog extends AuditReadable implements AsyncDisposable {
  readonly #opts: ResolvedAuditLogOptions;
  readonly #log: Logger;
  readonly #writer: WriterClient;
  readonly #lock: WriterLock;
  #timer: NodeJS.Timeout | undefined;
  #headTimer: NodeJS.Timeout | undefined;
  /** The seq of the head last written to the service log. */
  #loggedSeq = -1;
  #closing: Promise<void> | undefined;
  /** The last `ts` stamped and its clock value: appends in the same millisecond share it. */
  #lastMs = Number.NaN;
  #lastTs = '';

  private constructor(
    db: Database,
    opts: ResolvedAuditLogOptions,
    lock: WriterLock,
    notWritable: boolean,
  ) {
    super(db, opts.path);
    this.#opts = opts;
    this.#log = opts.logger;
    this.#lock = lock;
    const init = {
      path: opts.path,
      busyTimeoutMs: opts.busyTimeoutMs,
      maxDatabaseBytes: opts.maxDatabaseBytes,
      maxBatch: opts.maxBatch,
      limits: opts.limits,
      notWritableAtOpen: notWritable,
      commitDelayMs: opts.commitDelayMs,
    };
    this.#writer = new WriterClient(init, readTip(db), this.#log, {
      onReopen: (tip) => this.#reopened(tip),
      onThread: opts.onWriterThread,
      idleStopMs: opts.writerIdleMs,
    });
  }

  /**
   * Why the files cannot be written right now (immutable, read-only mount), or undefined.
   * `/readyz` asks this; the writer thread asks it too before every transaction.
   */
  writableProblem(): string | undefined {
    return unwritableReason(this.path);
  }

  /** The writer reopened the files once they were writable again: so does the read side. */
  #reopened(tip: ChainTip): void {
    try {
      const db = openWriterConnection(this.path, this.#opts);
      const old = this.db;
      this.db = db;
      old.close();
    } catch (err) {
      this.#log.warn({ err, path: this.path }, 'audit log read connection not reopened');
    }
    this.#log.info({ path: this.path, head: headText(tip) }, 'audit log writable again');
  }

  /** Opens (creating and migrating as needed) the log at `options.path` as its only writer. */
  static open(options: AuditLogOptions): AuditLog {
    const opts = resolveAuditLogOptions(options);
    mkdirSync(dirname(opts.path), { recursive: true });
    const lock = acquireLock(lockPathFor(opts.path));
    if (lock.tookOverFrom) {
      opts.logger.warn(
        { lock: lock.path, stale: lock.tookOverFrom },
        'took over a stale audit lock',
      );
    }
    let log: AuditLog;
    try {
      const db = openWriterConnection(opts.path, opts);
      // SQLite opens files it cannot write read-only; appends then fail (and /readyz says
      // so) until they are writable again, when the writer thread reopens them. Asked after
      // the open, which creates a new log's file: a first start has nothing to complain of.
      const problem = unwritableReason(opts.path);
      if (problem !== undefined) {
        opts.logger.error({ path: opts.path, problem }, 'audit log not writable');
      }
      try {
        log = new AuditLog(db, opts, lock, problem !== undefined);
      } catch (err) {
        db.close();
        throw new AuditOpenError(
          opts.path,
          `cannot read the chain tip: ${(err as Error).message}`,
          err,
        );
      }
    } catch (err) {
      lock.release();
      throw err;
    }
    log.#startRetentionTimer();
    // the head in the service's log (journald, docker logs) is a record outside the file
    // that `caesar audit verify --expect-head` can check later
    opts.logger.info({ path: opts.path, head: headText(log.head) }, 'audit log open');
    log.#loggedSeq = log.head.seq;
    log.#startHeadLog();
    return log;
  }

  /** The newest durable row's seq and hash (seq 0 and the genesis hash when empty). */
  get head(): ChainTip {
    return this.#writer.tip;
  }

  /**
   * Appends one event. Resolves with `{seq, hash, ts}` once the row is durable; appends made
   * in the same tick share one transaction. Rejects with AuditEventError for an event that
   * does not match the catalogue, AuditWriteError when the row cannot be written, and
   * AuditClosedError after `close()`.
   */
  append<T extends AppendableEventType>(event: AuditEventInput<T>): Promise<AppendResult> {
    if (this.#closing) return Promise.reject(new AuditClosedError(this.path));
    let row;
    try {
      row = prepareRow(event, this.#stamp(), this.#opts.limits);
    } catch (err) {
      const e =
        err instanceof AuditError ? err : new AuditEventError(String(event.type), String(err), err);
      return Promise.reject(e);
    }
    return this.#writer.enqueue(row);
  }

  /** `clock().toISOString()`, formatted once per millisecond (an invalid date still throws). */
  #stamp(): string {
    const now = this.#opts.clock();
    const ms = now.getTime();
    if (ms !== this.#lastMs) {
      this.#lastTs = now.toISOString();
      this.#lastMs = ms;
    }
    return this.#lastTs;
  }

  /**
   * Resolves once the writer thread has opened the file, so the first append does not wait
   * for the thread to start; rejects with AuditWriteError when it could not start. Appends
   * made before it resolves are kept and written in order.
   */
  ready(): Promise<void> {
    return this.#writer.ready();
  }

  /** Group-commit counters, for metrics. */
  writerStats(): WriterStats {
    return this.#writer.stats();
  }

  /** Runs one retention sweep now, in the writer thread between two commits (the timer calls this too). */
  async sweepRetention(now: Date = this.#opts.clock()): Promise<RetentionResult> {
    if (this.#closing) throw new AuditClosedError(this.path);
    const days = this.#opts.retention.days;
    if (days <= 0) return { deleted: 0, cutoff: new Date(0).toISOString() };
    const result = await this.#writer.sweep(days, now);
    if (result.deleted > 0) {
      this.#log.info(
        { deleted: result.deleted, cutoff: result.cutoff, seq: result.event?.seq },
        'audit retention sweep',
      );
    }
    return result;
  }

  /** First sweep shortly after open (a brain restarted often still sweeps), then every interval. */
  #startRetentionTimer(): void {
    const { days, intervalMs } = this.#opts.retention;
    if (days <= 0 || intervalMs <= 0) return;
    this.#scheduleSweep(Math.min(intervalMs, FIRST_SWEEP_DELAY_MS));
  }

  #scheduleSweep(delayMs: number): void {
    this.#timer = setTimeout(() => {
      if (this.#closing) return;
      this.sweepRetention()
        .catch((err: unknown) => this.#log.error({ err }, 'audit retention sweep failed'))
        .finally(() => {
          if (!this.#closing) this.#scheduleSweep(this.#opts.retention.intervalMs);
        });
    }, delayMs);
    this.#timer.unref();
  }

  /** Logs the head every `headLogIntervalMs` when rows were added since it was last logged. */
  #startHeadLog(): void {
    const every = this.#opts.headLogIntervalMs;
    if (every <= 0) return;
    this.#headTimer = setInterval(() => {
      const head = this.head;
      if (this.#closing || head.seq === this.#loggedSeq) return;
      this.#loggedSeq = head.seq;
      this.#log.info({ path: this.path, head: headText(head) }, 'audit head');
    }, every);
    this.#headTimer.unref();
  }

  /** Waits for pending appends, then closes the file and releases the writer lock. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    clearTimeout(this.#timer);
    clearInterval(this.#headTimer);
    try {
      await this.#writer.close();
    } finally {
      try {
        this.db.close();
      } finally {
        this.#lock.release();
        this.#log.info({ path: this.path, head: headText(this.head) }, 'audit log closed');
      }
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** `SEQ:HASH`, the form `caesar audit verify` prints and `--expect-head` takes. */
function headText(head: ChainTip): string {
  return `${head.seq}:${head.hash}`;
}

/** Opens the log for writing. See `AuditLog.open`. */
export function openAuditLog(options: AuditLogOptions): AuditLog {
  return AuditLog.open(options);
}
