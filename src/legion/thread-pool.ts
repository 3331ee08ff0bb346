import type { ResourceLimits } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import { assertScriptExists } from '../process/index.js';
import { BackendError, CaesarError, isWireErrorCode, TimeoutError } from '../protocol/index.js';
import { abortReason } from './abort.js';
import {
  TaskFailedError,
  TaskThread,
  ThreadEndedError,
  type ThreadEnd,
} from './task-thread-handle.js';

/**
 * Runs a CPU-bound step over untrusted data (a parser, an expander) in worker threads, each
 * with an enforced heap limit and each task under an enforced time bound, so nothing the
 * data does can hang the worker or grow it without end: an overrun, an exhausted heap or an
 * aborted call terminates that thread, the task answers a coded error at once, and a fresh
 * thread takes its place. Threads are reused from task to task and retired when idle.
 * (The calculator's pool, workers/calculator/evaluator.ts, is a pipelined cousin tuned for
 * microsecond tasks.)
 */

/** The time bound ends this long before a task's deadline, so the bound answers, not the deadline. */
export const DEADLINE_RESERVE_MS = 500;

export interface ThreadPoolOptions {
  /**
   * The thread's script, which ends by calling `serveThreadTask(step)`: the compiled one,
   * `compiledScriptUrl(import.meta.url, './my-thread.js')` (under dist/ when run from sources).
   */
  readonly script: URL;
  /** What the step is called in errors and logs: `calendar parsing`. */
  readonly name: string;
  /**
   * Threads at once, so tasks at once; more wait, first come first served (their wait counts
   * against their deadline only). A tool passes its `maxConcurrency`.
   * @default 2
   */
  readonly maxThreads?: number;
  /** Threads started with the pool and never retired. @default 0 */
  readonly warmThreads?: number;
  /** A thread beyond `warmThreads` idle this long is stopped. @default 60000 */
  readonly idleMs?: number;
  /**
   * Heap bound of each thread, in MB (V8's old generation; `resourceLimits`). A task that
   * needs more ends its thread and answers `backend_error` naming the bound.
   * @default 128
   */
  readonly maxHeapMb?: number;
  /**
   * Time bound of one task once a thread runs it, in ms; lowered for each task so it ends
   * {@link DEADLINE_RESERVE_MS} before that task's deadline. Past it the thread is
   * terminated and the task answers `backend_error` naming the bound.
   * @default 10000
   */
  readonly maxRunMs?: number;
  /** @default a logger that drops everything */
  readonly logger?: Logger;
}

export interface ThreadRunOptions {
  /** Aborting it stops the task: its thread is terminated, the run rejects with the reason. */
  readonly signal?: AbortSignal;
  /** Epoch ms, the call's deadline: the time bound ends before it. */
  readonly deadline?: number;
}

/** A pool of threads running one step; see {@link createThreadPool}. */
export interface ThreadPool<I, O> extends AsyncDisposable {
  /**
   * Runs the step on `input` (copied to the thread by structured clone) in a free thread.
   * Rejects with the step's own CaesarError, `backend_error` for a broken bound (retryable:
   * false, the message names the bound), the signal's reason when aborted, `timeout` when no
   * time is left before the deadline, or `internal` (a thread that crashed or cannot start).
   */
  run(input: I, options?: ThreadRunOptions): Promise<O>;
  /** Threads alive now (starting, idle or busy). */
  readonly threads: number;
  /** Threads started since the pool was made: reuse keeps it low, replacement raises it. */
  readonly started: number;
  /** Rejects waiting tasks, terminates every thread. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a pool (and waits for its `warmThreads` to load). In a tool: create it in `start`,
 * close it in `stop`, and `run` each call's step with `{ signal: ctx.signal, deadline:
 * ctx.deadline }`.
 * @throws Error when the script does not exist (`npm run build`) or a warm thread cannot start
 */
export async function createThreadPool<I, O>(
  options: ThreadPoolOptions,
): Promise<ThreadPool<I, O>> {
  assertScriptExists(options.script);
  const pool = new Pool<I, O>(options);
  try {
    await pool.warm();
  } catch (err) {
    await pool.close();
    throw err;
  }
  return pool;
}

interface Task {
  readonly input: unknown;
  readonly signal: AbortSignal | undefined;
  readonly deadline: number;
  readonly resolve: (output: unknown) => void;
  readonly reject: (err: Error) => void;
  readonly onAbort: () => void;
}

class Pool<I, O> implements ThreadPool<I, O> {
  private readonly name: string;
  private readonly limits: ResourceLimits;
  private readonly maxThreads: number;
  private readonly warmThreads: number;
  private readonly idleMs: number;
  private readonly maxRunMs: number;
  private readonly logger: Logger;
  private readonly alive = new Set<TaskThread>();
  private readonly retiring = new Set<TaskThread>();
  private readonly idleTimers = new Map<TaskThread, NodeJS.Timeout>();
  private readonly queue: Task[] = [];
  private closed = false;
  private startedCount = 0;

  constructor(private readonly options: ThreadPoolOptions) {
    this.name = options.name;
    const heap = options.maxHeapMb ?? 128;
    this.limits = {
      maxOldGenerationSizeMb: heap,
      maxYoungGenerationSizeMb: Math.min(16, Math.max(1, Math.floor(heap / 8))),
      stackSizeMb: 4,
    };
    this.maxThreads = Math.max(1, options.maxThreads ?? 2);
    this.warmThreads = Math.min(options.warmThreads ?? 0, this.maxThreads);
    this.idleMs = options.idleMs ?? 60_000;
    this.maxRunMs = options.maxRunMs ?? 10_000;
    this.logger = options.logger ?? pino({ enabled: false });
  }

  get threads(): number {
    return this.alive.size;
  }

  get started(): number {
    return this.startedCount;
  }

  async warm(): Promise<void> {
    const threads = Array.from({ length: this.warmThreads }, () => this.spawn());
    await Promise.all(threads.map((t) => t.ready));
  }

  run(input: I, options: ThreadRunOptions = {}): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const { signal } = options;
      if (this.closed) return reject(this.shuttingDown());
      if (signal?.aborted) return reject(abortReason(signal));
      const task: Task = {
        input,
        signal,
        deadline: options.deadline ?? Number.POSITIVE_INFINITY,
        resolve: resolve as (output: unknown) => void,
        reject,
        onAbort: () => {
          const waiting = this.queue.indexOf(task);
          if (waiting >= 0) this.queue.splice(waiting, 1);
          reject(abortReason(signal!));
        },
      };
      signal?.addEventListener('abort', task.onAbort, { once: true });
      this.queue.push(task);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    for (const task of this.queue.splice(0)) {
      task.signal?.removeEventListener('abort', task.onAbort);
      task.reject(this.shuttingDown());
    }
    await Promise.allSettled([...this.alive].map((t) => t.stop()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Hands waiting tasks to idle threads, then starts threads for those still waiting. */
  private dispatch(): void {
    if (this.closed) return;
    for (const thread of this.alive) {
      if (this.queue.length === 0) break;
      if (thread.idle) this.start(thread, this.queue.shift()!);
    }
    let starting = [...this.alive].filter((t) => t.starting).length;
    while (this.queue.length > starting && this.alive.size < this.maxThreads) {
      this.spawn();
      starting += 1;
    }
  }

  /** Runs `task` on `thread` under its time bound; its abort now stops the thread. */
  private start(thread: TaskThread, task: Task): void {
    this.disarmRetirement(thread);
    const { signal } = task;
    signal?.removeEventListener('abort', task.onAbort);
    const bound = Math.min(this.maxRunMs, task.deadline - Date.now() - DEADLINE_RESERVE_MS);
    if (bound <= 0) {
      task.reject(new TimeoutError(`no time was left to run ${this.name} before the deadline`));
      queueMicrotask(() => this.dispatch());
      return;
    }
    const onAbort = () => void thread.stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    thread.run(task.input, bound).then(
      (output) => {
        signal?.removeEventListener('abort', onAbort);
        task.resolve(output);
        this.armRetirement(thread);
        this.dispatch();
      },
      (err: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        task.reject(this.callerError(err, bound, signal));
        if (thread.idle) this.armRetirement(thread); // the step threw; the thread is fine
        this.dispatch();
      },
    );
  }

  /** Starts a thread; once it has loaded it takes a waiting task or starts its idle clock. */
  private spawn(): TaskThread {
    const thread = new TaskThread(this.options.script, this.limits, (t, end) => this.ended(t, end));
    this.alive.add(thread);
    this.startedCount += 1;
    thread.ready.then(
      () => {
        this.dispatch();
        this.armRetirement(thread);
      },
      () => undefined, // reported through `ended`
    );
    return thread;
  }

  /**
   * A thread ended: retired or closed, that is all; otherwise (cut off, out of heap, aborted,
   * crashed) a fresh one takes its place at once, so the next task does not wait for a start.
   * One that failed to start is not restarted (it would fail again): waiting tasks fail.
   */
  private ended(thread: TaskThread, end: ThreadEnd): void {
    this.alive.delete(thread);
    this.disarmRetirement(thread);
    if (this.retiring.delete(thread) || this.closed) return;
    if (end === 'startup_failed') {
      this.logger.error({ pool: this.name }, 'a thread failed to start');
      if (this.alive.size === 0) {
        for (const task of this.queue.splice(0)) {
          task.signal?.removeEventListener('abort', task.onAbort);
          task.reject(
            CaesarError.of('internal', { reason: `${this.name} could not start a thread` }),
          );
        }
      }
      return;
    }
    this.logger.warn({ pool: this.name, end }, 'thread ended; starting a fresh one');
    this.spawn();
  }

  private armRetirement(thread: TaskThread): void {
    if (this.closed || this.idleTimers.has(thread) || !thread.idle) return;
    if (this.alive.size <= this.warmThreads) return;
    const timer = setTimeout(() => {
      this.idleTimers.delete(thread);
      if (!thread.idle || this.alive.size <= this.warmThreads) return;
      this.retiring.add(thread);
      void thread.stop();
    }, this.idleMs);
    timer.unref(); // an idle pool never keeps the process alive
    this.idleTimers.set(thread, timer);
  }

  private disarmRetirement(thread: TaskThread): void {
    clearTimeout(this.idleTimers.get(thread));
    this.idleTimers.delete(thread);
  }

  /** What the caller of `run` gets for a failed task. */
  private callerError(err: unknown, boundMs: number, signal: AbortSignal | undefined): Error {
    if (err instanceof TaskFailedError) {
      const { code, message, retryable, details } = err.failure;
      if (isWireErrorCode(code)) return new CaesarError(code, message, { retryable, details });
      return CaesarError.of('internal', { reason: `${this.name} failed: ${message}` });
    }
    if (!(err instanceof ThreadEndedError)) {
      return CaesarError.of('internal', { reason: `${this.name}: ${String(err)}` }, { cause: err });
    }
    if (err.end === 'overran') {
      return new BackendError(
        `${this.name} ran past its time bound of ${boundMs} ms; its thread was stopped`,
        { retryable: false, cause: err },
      );
    }
    if (err.end === 'out_of_memory') {
      return new BackendError(
        `${this.name} ran out of its heap bound of ${this.limits.maxOldGenerationSizeMb} MB; its thread was stopped`,
        { retryable: false, cause: err },
      );
    }
    if (err.end === 'stopped') return signal?.aborted ? abortReason(signal) : this.shuttingDown();
    return CaesarError.of(
      'internal',
      { reason: `${this.name} thread ended: ${err.message}` },
      { cause: err },
    );
  }

  private shuttingDown(): CaesarError {
    return CaesarError.of(
      'internal',
      { reason: `${this.name} is shutting down` },
      { retryable: true },
    );
  }
}
