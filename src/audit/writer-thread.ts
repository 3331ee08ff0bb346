import {
  isMainThread,
  parentPort,
  receiveMessageOnPort,
  workerData,
  type MessagePort,
} from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { sqliteCodeOf, unwritableReason } from '../files/index.js';
import { HashChain, type Appended } from './chain.js';
import { openWriterConnection } from './connection.js';
import type { PreparedRow } from './row.js';
import { sweep } from './retention.js';
import type { FromWriter, ToWriter, WriterFailure, WriterInit } from './writer-messages.js';

/**
 * The audit log's writer thread: the only connection that writes the file. Group commit as
 * in ADR 0020, moved off the brain's event loop. Rows arrive in `append` messages; the main
 * thread sends the rows of one turn of its loop in chunks as they are prepared, the last
 * one marked `more: false`. The thread inserts each chunk into the open transaction as it
 * arrives, so SQLite's inserts overlap the main thread's preparation of the next rows, and
 * commits once the turn is complete and nothing else is waiting (or at `maxBatch` rows):
 * whatever arrived while the previous transaction (and its fsync) ran joins the next one.
 * Each row is answered only after COMMIT returned. Sweeps run between transactions, in
 * posting order.
 *
 * Started by `writer-client.ts` with this file's compiled URL; does nothing when imported.
 */

type Job =
  { kind: 'rows'; rows: PreparedRow[] } | { kind: 'sweep'; id: number; days: number; now: string };

class Writer {
  readonly #init: WriterInit;
  readonly #port: MessagePort;
  #db: Database;
  readonly #chain: HashChain;
  /** Rows and sweeps not yet handled, oldest first; rows of adjacent messages are merged. */
  #jobs: Job[] = [];
  /** The last `append` said more rows of the same turn follow: the transaction stays open. */
  #more = false;
  /** What the open transaction holds, in order; empty when none is open. */
  #inserted: Appended[] = [];
  #closing = false;
  /** Set while the files are not writable: the connection is reopened once they are. */
  #reopen: boolean;
  readonly #sleeper: Int32Array | undefined;

  constructor(init: WriterInit, port: MessagePort) {
    this.#init = init;
    this.#port = port;
    this.#db = openWriterConnection(init.path, init);
    this.#chain = new HashChain(this.#db);
    this.#reopen = init.notWritableAtOpen;
    this.#sleeper = init.commitDelayMs > 0 ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
    this.#post({ type: 'ready', tip: this.#chain.tip });
  }

  #post(msg: FromWriter): void {
    this.#port.postMessage(msg);
  }

  /**
   * One message woke the thread: it takes every message already waiting on the port too,
   * then writes them, and again takes what arrived meanwhile, until none is left. No
   * event-loop turn passes between a commit and the next batch. A transaction whose turn
   * is not complete stays open until its next chunk wakes the thread.
   */
  readonly onMessage = (msg: ToWriter): void => {
    this.#take(msg);
    for (;;) {
      this.#takeWaiting();
      const job = this.#jobs[0];
      if (job !== undefined) this.#run(job);
      else if (this.#chain.open && (!this.#more || this.#closing)) this.#commit();
      else break;
    }
    if (this.#closing) this.#close();
  };

  #takeWaiting(): void {
    for (;;) {
      const waiting = receiveMessageOnPort(this.#port);
      if (waiting === undefined) return;
      this.#take(waiting.message as ToWriter);
    }
  }

  #take(msg: ToWriter): void {
    if (msg.type === 'close') {
      this.#closing = true;
    } else if (msg.type === 'append') {
      this.#more = msg.more;
      if (msg.rows.length === 0) return;
      const last = this.#jobs.at(-1);
      if (last?.kind === 'rows') for (const row of msg.rows) last.rows.push(row);
      else this.#jobs.push({ kind: 'rows', rows: [...msg.rows] });
    } else {
      this.#jobs.push({ kind: 'sweep', id: msg.id, days: msg.days, now: msg.now });
    }
  }

  /** Handles the oldest job: a sweep (after the open transaction), or rows into the transaction. */
  #run(job: Job): void {
    if (job.kind === 'sweep') {
      if (this.#chain.open) {
        this.#commit();
        return;
      }
      this.#jobs.shift();
      this.#sweep(job);
      return;
    }
    const room = this.#init.maxBatch - this.#inserted.length;
    const rows = job.rows.length <= room ? job.rows : job.rows.slice(0, room);
    if (rows === job.rows) this.#jobs.shift();
    else job.rows = job.rows.slice(room);
    this.#insert(rows);
    if (this.#inserted.length >= this.#init.maxBatch) this.#commit();
  }

  /** Inserts into the open transaction, opening one first; on error fails all it held. */
  #insert(rows: PreparedRow[]): void {
    if (!this.#chain.open) {
      try {
        this.#preflight();
        this.#chain.begin();
      } catch (err) {
        this.#fail(rows.length, err, false);
        return;
      }
    }
    let appended: Appended[];
    try {
      appended = this.#chain.insert(rows);
    } catch (err) {
      this.#fail(this.#inserted.length + rows.length, err, true);
      return;
    }
    for (const a of appended) this.#inserted.push(a);
  }

  /** Commits the open transaction and answers every row it held. */
  #commit(): void {
    try {
      this.#slowFsync();
      this.#chain.commit();
    } catch (err) {
      this.#fail(this.#inserted.length, err, true);
      return;
    }
    const results = this.#inserted;
    this.#inserted = [];
    this.#post({ type: 'committed', results });
  }

  /** Rolls back what is open and fails `count` rows: those it held, and any not inserted. */
  #fail(count: number, err: unknown, rollback: boolean): void {
    this.#inserted = [];
    if (rollback) {
      try {
        this.#chain.rollback();
      } catch {
        // the connection is in trouble; resync below re-reads the tip either way
      }
      this.#resync();
    }
    this.#post({ type: 'failed', count, failure: failureOf(err), tip: this.#chain.tip });
  }

  #sweep(job: { id: number; days: number; now: string }): void {
    try {
      this.#preflight();
      const result = sweep(this.#db, this.#chain, {
        days: job.days,
        now: new Date(job.now),
        limits: this.#init.limits,
      });
      this.#post({ type: 'swept', id: job.id, result, tip: this.#chain.tip });
    } catch (err) {
      this.#resync();
      this.#post({ type: 'sweep_failed', id: job.id, failure: failureOf(err) });
    }
  }

  /**
   * Refuses the transaction while the files are not writable (a write through SQLite's
   * memory map of `-shm` would be SIGBUS); reopens the connection once they are again.
   */
  #preflight(): void {
    const problem = unwritableReason(this.#init.path);
    if (problem !== undefined) {
      if (!this.#reopen) {
        this.#log('error', { path: this.#init.path, problem }, 'audit log not writable');
      }
      this.#reopen = true;
      throw new Error(problem);
    }
    if (!this.#reopen) return;
    const db = openWriterConnection(this.#init.path, this.#init);
    try {
      this.#chain.reattach(db);
    } catch (err) {
      db.close();
      throw err;
    }
    const old = this.#db;
    this.#db = db;
    this.#reopen = false;
    old.close();
    this.#post({ type: 'reopened', tip: this.#chain.tip });
  }

  /** After a transaction whose outcome is not certain: the tip is re-read from the file. */
  #resync(): void {
    try {
      this.#chain.resync();
    } catch (err) {
      this.#log('error', { err: String(err) }, 'audit log unreadable after a failed append');
    }
  }

  #slowFsync(): void {
    if (this.#sleeper) Atomics.wait(this.#sleeper, 0, 0, this.#init.commitDelayMs);
  }

  #log(level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string): void {
    this.#post({ type: 'log', level, fields, msg });
  }

  #close(): void {
    this.#db.close();
    this.#post({ type: 'closed', tip: this.#chain.tip });
    this.#port.close();
  }
}

function failureOf(err: unknown): WriterFailure {
  return {
    message: err instanceof Error ? err.message : String(err),
    sqliteCode: sqliteCodeOf(err),
  };
}

if (!isMainThread && parentPort !== null) {
  const writer = new Writer(workerData as WriterInit, parentPort);
  parentPort.on('message', writer.onMessage);
}
