import type { Worker } from 'node:worker_threads';
import { compiledScriptUrl, startThread, threadExitText, type Thread } from '../process/index.js';
import type { Logger } from '../log/index.js';
import type { Appended, ChainTip } from './chain.js';
import { AuditWriteError } from './errors.js';
import type { PreparedRow } from './row.js';
import type { RetentionResult } from './retention.js';
import type { FromWriter, ToWriter, WriterFailure, WriterInit } from './writer-messages.js';

/**
 * The main thread's side of the audit writer (ADR 0020, addendum 2026-12): rows prepared in
 * `append` are posted to the writer thread in chunks of CHUNK_ROWS as they come, the turn's
 * last chunk marked `more: false` (so the thread commits a turn as one transaction), and
 * each promise resolves when the thread says its row was committed. The brain's event loop never waits
 * for SQLite or an fsync; the durability contract is the thread's (a promise resolves only
 * after COMMIT returned there).
 *
 * Fail closed: if the thread dies, every row it had not answered is rejected with
 * AuditWriteError (the row may or may not be in the file; the caller must not act as if it
 * were), and the next append starts a new thread, which re-reads the chain tip from the file.
 *
 * A thread with nothing in flight for `idleStopMs` is stopped: its isolate, connection and
 * malloc arena were 6.5 MiB of an idle brain's RSS (90 MiB). The next append or sweep
 * starts another, as after a death but without the pause; that append waits for the new
 * thread to load its modules and open the file (p50 ~70 ms on a 2-core x86 box). Nothing
 * else changes: a row is still answered only after its COMMIT returned, by the thread that
 * committed it.
 */

interface Pending {
  readonly resolve: (r: Appended) => void;
  readonly reject: (e: Error) => void;
}

interface PendingSweep {
  readonly resolve: (r: RetentionResult) => void;
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
  /** Rows waiting for their commit. */
  readonly pending: number;
}

/**
 * Rows per message within one turn: the thread inserts a chunk while the main thread still
 * prepares the turn's later rows (measured in `npm run bench -- audit`, docs/benchmarks.md).
 */
const CHUNK_ROWS = 16;

/** A thread that died is not restarted sooner than this: a broken build must not spin. */
const RESTART_PAUSE_MS = 1_000;

export interface WriterClientOptions {
  /** Called when the thread reopened the file (it had been read-only). */
  readonly onReopen: (tip: ChainTip) => void;
  /** Called with each thread as it starts. */
  readonly onThread?: ((thread: Worker) => void) | undefined;
  /** The thread stops after this long with nothing in flight; 0 keeps it. */
  readonly idleStopMs: number;
}

export class WriterClient {
  #init: WriterInit;
  readonly #log: Logger;
  #worker: Thread | undefined;
  /** Rows of this turn, not yet posted. */
  #batch: PreparedRow[] = [];
  #batchPending: Pending[] = [];
  #scheduled = false;
  /** A chunk of this turn went out with `more: true`: the turn's last message is owed. */
  #streaming = false;
  /** Posted rows awaiting their outcome, oldest first. */
  #inflight: Pending[] = [];
  #inflightHead = 0;
  readonly #sweeps = new Map<number, PendingSweep>();
  #nextSweep = 1;
  #tip: ChainTip;
  #stats = { rows: 0, batches: 0, maxBatch: 0, failures: 0 };
  #idle: Array<() => void> = [];
  #diedAt = Number.NEGATIVE_INFINITY;
  #deathReason = '';
  #closed: Promise<void> | undefined;
  /** Settles when the current thread has opened the file (or died trying). */
  #ready: Promise<void> = Promise.resolve();
  #readyNow: { resolve: () => void; reject: (e: Error) => void } | undefined;
  readonly #onReopen: (tip: ChainTip) => void;
  readonly #onThread: ((thread: Worker) => void) | undefined;
  readonly #idleStopMs: number;
  /** Since when nothing has been in flight (performance.now()). */
  #quietSince = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  /** A thread stopped for idleness, until it has exited. */
  #retiring: Promise<void> | undefined;

  constructor(init: WriterInit, tip: ChainTip, log: Logger, options: WriterClientOptions) {
    this.#init = init;
    this.#onThread = options.onThread;
    this.#idleStopMs = options.idleStopMs;
    this.#tip = tip;
    this.#log = log;
    this.#onReopen = options.onReopen;
    this.#start();
  }

  /** The newest durable row's seq and hash, as the thread last reported it. */
  get tip(): ChainTip {
    return this.#tip;
  }

  enqueue(row: PreparedRow): Promise<Appended> {
    return new Promise<Appended>((resolve, reject) => {
      this.#batch.push(row);
      this.#batchPending.push({ resolve, reject });
      if (this.#batch.length >= CHUNK_ROWS) this.#flush(true);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#post);
      }
    });
  }

  /** Runs one retention sweep in the thread, between two group commits. */
  sweep(days: number, now: Date): Promise<RetentionResult> {
    return new Promise<RetentionResult>((resolve, reject) => {
      const worker = this.#ensureWorker();
      if (worker === undefined) {
        reject(this.#deadError(1));
        return;
      }
      if (this.#streaming) this.#flush(false); // no sweep inside an open transaction
      const id = this.#nextSweep++;
      this.#sweeps.set(id, { resolve, reject });
      this.#send(worker, { type: 'sweep', id, days, now: now.toISOString() });
    });
  }

  stats(): WriterStats {
    const pending = this.#batch.length + this.#inflight.length - this.#inflightHead;
    return { ...this.#stats, pending };
  }

  /** Resolves once the writer thread has opened the file; rejects if it could not. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Resolves once every row enqueued so far has been committed or rejected. */
  drain(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Drains, then stops the thread once it closed its connection. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    await this.drain();
    clearTimeout(this.#idleTimer);
    await this.#retiring;
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#send(worker, { type: 'close' });
    await worker.exited;
  }

  readonly #post = (): void => {
    this.#scheduled = false;
    if (this.#batch.length > 0 || this.#streaming) this.#flush(false);
  };

  /** Sends the rows enqueued so far; `more` says the turn has more to come. */
  #flush(more: boolean): void {
    const rows = this.#batch;
    const pending = this.#batchPending;
    this.#batch = [];
    this.#batchPending = [];
    this.#streaming = more;
    const worker = this.#ensureWorker();
    if (worker === undefined) {
      this.#streaming = false;
      const error = this.#deadError(rows.length);
      this.#stats.failures += rows.length;
      for (const p of pending) p.reject(error);
      this.#notifyIfIdle();
      return;
    }
    for (const p of pending) this.#inflight.push(p);
    this.#send(worker, { type: 'append', rows, more });
  }

  /** Posts to the thread, which holds the process open until every answer is back. */
  #send(worker: Thread, msg: ToWriter): void {
    worker.ref();
    worker.postMessage(msg);
  }

  #ensureWorker(): Thread | undefined {
    if (this.#worker !== undefined) return this.#worker;
    if (performance.now() - this.#diedAt < RESTART_PAUSE_MS) return undefined;
    this.#start();
    return this.#worker;
  }

  #start(): void {
    // the thread writes nothing of its own; log lines come back as messages
    const worker = startThread(compiledScriptUrl(import.meta.url, './writer-thread.js'), {
      workerData: this.#init,
      unref: true,
    });
    this.#ready = new Promise<void>((resolve, reject) => (this.#readyNow = { resolve, reject }));
    this.#ready.catch(() => {}); // also reported by the appends that fail
    worker.onMessage((message) => {
      const msg = message as FromWriter;
      // a retired thread's last words (its tip at close) are history once another started
      if (this.#worker === worker || msg.type === 'log') this.#onMessage(msg);
    });
    worker.onExit((exit) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      if (this.#closed !== undefined && this.#isIdle()) return;
      this.#died(threadExitText(exit));
    });
    this.#worker = worker;
    this.#onThread?.(worker.worker);
  }

  #onMessage(msg: FromWriter): void {
    switch (msg.type) {
      case 'committed':
        this.#committed(msg.results);
        break;
      case 'failed':
        this.#tip = msg.tip;
        this.#failed(msg.count, msg.failure);
        break;
      case 'swept':
        this.#tip = msg.tip;
        this.#settleSweep(msg.id, (p) => p.resolve(msg.result));
        this.#notifyIfIdle();
        break;
      case 'sweep_failed':
        this.#settleSweep(msg.id, (p) => p.reject(writeError(msg.failure, 1)));
        this.#notifyIfIdle();
        break;
      case 'log':
        this.#log[msg.level]({ ...msg.fields }, msg.msg);
        break;
      case 'reopened':
        this.#tip = msg.tip;
        // a later thread opens a writable file as such, without reopening it
        this.#init = { ...this.#init, notWritableAtOpen: false };
        this.#onReopen(msg.tip);
        break;
      case 'ready':
        this.#tip = msg.tip;
        this.#readyNow?.resolve();
        this.#readyNow = undefined;
        if (this.#isIdle()) this.#quiet();
        break;
      case 'closed':
        this.#tip = msg.tip;
        break;
    }
  }

  #committed(results: readonly Appended[]): void {
    const n = results.length;
    this.#stats.rows += n;
    this.#stats.batches += 1;
    if (n > this.#stats.maxBatch) this.#stats.maxBatch = n;
    for (let i = 0; i < n; i++) this.#next().resolve(results[i] as Appended);
    const last = results[n - 1];
    if (last !== undefined) this.#tip = { seq: last.seq, hash: last.hash };
    this.#notifyIfIdle();
  }

  #failed(count: number, failure: WriterFailure): void {
    const error = writeError(failure, count);
    this.#stats.failures += count;
    this.#log.error(
      { err: error, batchSize: count, sqliteCode: error.sqliteCode },
      'audit append failed',
    );
    for (let i = 0; i < count; i++) this.#next().reject(error);
    this.#notifyIfIdle();
  }

  /** The oldest posted row still waiting. */
  #next(): Pending {
    const p = this.#inflight[this.#inflightHead++] as Pending;
    if (this.#inflightHead > 1024 && this.#inflightHead * 2 > this.#inflight.length) {
      this.#inflight = this.#inflight.slice(this.#inflightHead);
      this.#inflightHead = 0;
    }
    return p;
  }

  #settleSweep(id: number, settle: (p: PendingSweep) => void): void {
    const p = this.#sweeps.get(id);
    if (p === undefined) return;
    this.#sweeps.delete(id);
    settle(p);
  }

  /** The thread is gone: every unanswered row and sweep fails closed. */
  #died(reason: string): void {
    this.#diedAt = performance.now();
    this.#deathReason = reason;
    this.#readyNow?.reject(this.#deadError(0));
    this.#readyNow = undefined;
    const waiting = this.#inflight.slice(this.#inflightHead);
    this.#inflight = [];
    this.#inflightHead = 0;
    this.#log.error({ reason, unanswered: waiting.length }, 'audit writer thread stopped');
    const error = this.#deadError(waiting.length);
    this.#stats.failures += waiting.length;
    for (const p of waiting) p.reject(error);
    for (const p of this.#sweeps.values()) p.reject(this.#deadError(1));
    this.#sweeps.clear();
    this.#notifyIfIdle();
  }

  #deadError(batchSize: number): AuditWriteError {
    const reason = `the audit writer thread stopped: ${this.#deathReason}`;
    return new AuditWriteError(reason, {
      cause: new Error(reason),
      batchSize,
    });
  }

  #isIdle(): boolean {
    return this.#batch.length === 0 && this.#inflight.length === this.#inflightHead;
  }

  /** Nothing is in flight: the thread stops unless something arrives within `idleStopMs`. */
  #quiet(): void {
    if (this.#idleStopMs <= 0 || this.#worker === undefined) return;
    this.#quietSince = performance.now();
    this.#idleTimer ??= setTimeout(this.#checkIdle, this.#idleStopMs).unref();
  }

  /** One timer per quiet spell: work in between moves `#quietSince`, not the timer. */
  readonly #checkIdle = (): void => {
    this.#idleTimer = undefined;
    // busy now: the timer is armed again when it is next quiet
    if (!this.#isIdle() || this.#streaming || this.#sweeps.size > 0) return;
    if (this.#closed !== undefined || this.#worker === undefined) return;
    const left = this.#idleStopMs - (performance.now() - this.#quietSince);
    if (left > 0) this.#idleTimer = setTimeout(this.#checkIdle, left).unref();
    else this.#retire(this.#worker);
  };

  /**
   * Stops an idle thread: it commits nothing more, closes its connection and exits. It is
   * detached first, so the next append starts another at once; both may briefly hold the
   * file, which SQLite's locks allow, and the new one reads the tip the old one committed.
   */
  #retire(worker: Thread): void {
    this.#worker = undefined;
    const exited = worker.exited;
    const retiring: Promise<void> = Promise.all([this.#retiring, exited]).then(() => {
      if (this.#retiring === retiring) this.#retiring = undefined;
    });
    this.#retiring = retiring;
    worker.postMessage({ type: 'close' } satisfies ToWriter);
    this.#log.debug({ idleMs: this.#idleStopMs }, 'audit writer thread stopped while idle');
  }

  #notifyIfIdle(): void {
    if (!this.#isIdle()) return;
    // an idle writer does not keep the process alive, as an idle connection would not
    if (this.#sweeps.size === 0) this.#worker?.unref();
    this.#quiet();
    if (this.#idle.length === 0) return;
    const waiters = this.#idle;
    this.#idle = [];
    for (const w of waiters) w();
  }
}

/** The AuditWriteError of a failed transaction, its cause carrying SQLite's code. */
function writeError(failure: WriterFailure, batchSize: number): AuditWriteError {
  const cause = Object.assign(new Error(failure.message), { code: failure.sqliteCode });
  return new AuditWriteError(failure.message, { cause, batchSize });
}
