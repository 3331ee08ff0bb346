import type { ResourceLimits } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import {
  assertScriptExists,
  CaesarError,
  compiledScriptUrl,
  InvalidInputError,
  TimeoutError,
  wholeMsSince,
} from '../../src/legion/index.js';
import {
  EvalThreadHandle,
  ThreadDiedError,
  type HeldJobs,
  type ThreadJob,
} from './eval-thread-handle.js';
import type { CalcResult } from './schema.js';
import { ExpressionRejectedError, prescreen } from './screen.js';
import type { EvalReply } from './thread-messages.js';

/**
 * Limits for each evaluation thread. Loaded mathjs holds about 40 MB of old-generation heap
 * (a thread does not start below 48 MB), so 64 MB leaves room for any expression the
 * screen lets through while an allocation bomb still ends in `invalid_input`.
 */
const DEFAULT_RESOURCE_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  maxOldGenerationSizeMb: 64,
  maxYoungGenerationSizeMb: 16,
  codeRangeSizeMb: 16,
  stackSizeMb: 4,
});

/** Calculations one thread holds at once unless `threadDepth` says otherwise. */
export const DEFAULT_THREAD_DEPTH = 32;

/**
 * A calculation running this long (ms) is slow: ordinary ones take microseconds, so no
 * more are sent to wait behind it.
 */
const SLOW_MS = 10;

export interface EvaluatorOptions {
  /**
   * Most threads at once, one per calculation that may run at once. Threads start on demand:
   * a call that finds none idle starts one (a cold start loads mathjs: about 1 s and 60-80 MB).
   * @default 2
   */
  maxThreads?: number;
  /**
   * Threads started with the pool and kept however idle it is: `createEvaluator` waits for
   * them. 0 trades the first call's cold start for an idle worker without mathjs.
   * @default 0
   */
  warmThreads?: number;
  /** A thread beyond `warmThreads` idle this long is stopped. @default 60000 */
  idleMs?: number;
  /** Heap and stack limits of each thread. @default DEFAULT_RESOURCE_LIMITS */
  resourceLimits?: ResourceLimits;
  /**
   * Hard cap on one calculation once a thread runs it, whatever the caller's signal says
   * (time spent waiting for a thread, cold start included, counts against the signal only).
   * @default 2000
   */
  maxEvalMs?: number;
  /**
   * Calculations one thread holds at once: the one it runs and those sent to wait behind
   * it, so it never sleeps between two calls while more wait (ADR 0050). A calculation cut
   * off at `maxEvalMs` delays those sent to wait behind it before it had run 10 ms (at most
   * `threadDepth - 1`), which then run elsewhere.
   * @default 32
   */
  threadDepth?: number;
  /** @default a logger that drops everything */
  logger?: Logger;
  /**
   * The thread script; tests point it elsewhere.
   * @default the compiled eval-thread.js (`compiledScriptUrl`: under dist/ when run from sources)
   */
  threadUrl?: URL;
}

interface EvaluateOptions {
  /** Aborting it (the call's deadline) stops the calculation: its thread is terminated. */
  signal?: AbortSignal;
}

/**
 * A pool of evaluation threads that grows on demand up to `maxThreads` and stops threads
 * that stay idle (ADR 0048). Refusals reject with InvalidInputError, deadlines with
 * TimeoutError; a thread that ran out of memory, crashed or was cut off is dropped and the
 * next call starts a fresh one, so it is served normally.
 */
export interface Evaluator extends AsyncDisposable {
  evaluate(expression: string, options?: EvaluateOptions): Promise<CalcResult>;
  /** Threads alive now, ready or starting. */
  readonly threads: number;
  /** Rejects waiting calls and terminates every thread. Idempotent. */
  close(): Promise<void>;
}

interface Job {
  readonly expression: string;
  readonly signal: AbortSignal | undefined;
  resolve(result: CalcResult): void;
  reject(err: Error): void;
}

/** Starts the pool and waits until its `warmThreads` have loaded and warmed mathjs. */
export async function createEvaluator(options: EvaluatorOptions = {}): Promise<Evaluator> {
  const pool = new EvaluatorPool(options);
  try {
    await pool.start();
  } catch (err) {
    await pool.close();
    throw err;
  }
  return pool;
}

/** A call from the moment it is asked until it is answered, once, whichever way comes first. */
interface Ticket extends ThreadJob {
  /** The thread it was sent to, if any. */
  thread: EvalThreadHandle<Ticket> | undefined;
  readonly done: boolean;
  settle(outcome: { result: CalcResult } | { error: Error }): void;
}

type Thread = EvalThreadHandle<Ticket>;

class EvaluatorPool implements Evaluator {
  private readonly url: URL;
  private readonly limits: ResourceLimits;
  private readonly maxEvalMs: number;
  private readonly warmThreads: number;
  private readonly idleMs: number;
  private readonly depth: number;
  private readonly logger: Logger;
  private readonly slots: (Thread | undefined)[];
  private readonly queue: Ticket[] = [];
  /** The retirement clock of each idle thread. */
  private readonly idle = new Map<Thread, NodeJS.Timeout>();
  private readonly events = {
    replied: (ticket: Ticket, reply: EvalReply) => {
      ticket.settle(outcomeOf(reply));
      this.dispatch();
    },
    ended: (thread: Thread, why: ThreadDiedError) => this.replace(thread, why),
  };
  private closed = false;

  constructor(options: EvaluatorOptions) {
    this.url = options.threadUrl ?? compiledScriptUrl(import.meta.url, './eval-thread.js');
    this.limits = options.resourceLimits ?? DEFAULT_RESOURCE_LIMITS;
    this.maxEvalMs = options.maxEvalMs ?? 2000;
    const maxThreads = options.maxThreads ?? 2;
    this.warmThreads = Math.min(options.warmThreads ?? 0, maxThreads);
    this.idleMs = options.idleMs ?? 60_000;
    this.depth = options.threadDepth ?? DEFAULT_THREAD_DEPTH;
    this.logger = options.logger ?? pino({ enabled: false });
    this.slots = new Array<Thread | undefined>(maxThreads).fill(undefined);
  }

  async start(): Promise<void> {
    assertScriptExists(this.url); // a threadUrl option is not checked by the constructor
    if (this.warmThreads === 0) return;
    const started = performance.now();
    const threads = this.slots.slice(0, this.warmThreads).map((_, i) => this.spawn(i));
    await Promise.all(threads.map((t) => t.ready));
    const ms = wholeMsSince(started);
    this.logger.info({ threads: threads.length, ms }, 'calculator threads ready');
  }

  get threads(): number {
    return this.slots.filter((t) => t !== undefined).length;
  }

  evaluate(expression: string, options: EvaluateOptions = {}): Promise<CalcResult> {
    return new Promise<CalcResult>((resolve, reject) => {
      if (this.closed) return reject(shuttingDown());
      try {
        prescreen(expression);
      } catch (err) {
        return reject(toCallerError(err));
      }
      if (options.signal?.aborted) return reject(deadlinePassed(options.signal));
      this.queue.push(this.ticket({ expression, signal: options.signal, resolve, reject }));
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.idle.values()) clearTimeout(timer);
    this.idle.clear();
    for (const ticket of this.queue.splice(0)) ticket.settle({ error: shuttingDown() });
    const threads = this.slots.splice(0).filter((t) => t !== undefined);
    const exits = threads.map((thread) => {
      const { jobs, exited } = thread.terminate();
      for (const t of [jobs.running, ...jobs.unstarted]) t?.settle({ error: shuttingDown() });
      return exited;
    });
    await Promise.allSettled(exits);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Wraps a job with its deadline (the caller's signal, from the moment of the call). It
   * cuts the call off wherever it is: still queued, it leaves the queue; running, its thread
   * is terminated and replaced; sent to a thread but not started, it is answered at once and
   * the thread's later answer is dropped. The cap on the calculation itself is the thread's.
   */
  private ticket(job: Job): Ticket {
    let done = false;
    const onAbort = (): void => {
      const error = deadlinePassed(job.signal);
      const queued = this.queue.indexOf(ticket);
      if (queued >= 0) this.queue.splice(queued, 1);
      ticket.settle({ error });
      const thread = ticket.thread;
      if (thread !== undefined && thread.running === ticket) this.replace(thread, 'deadline');
    };
    const ticket: Ticket = {
      expression: job.expression,
      thread: undefined,
      get done() {
        return done;
      },
      settle: (outcome) => {
        if (done) return;
        done = true;
        job.signal?.removeEventListener('abort', onAbort);
        if ('result' in outcome) job.resolve(outcome.result);
        else job.reject(outcome.error);
      },
    };
    job.signal?.addEventListener('abort', onAbort, { once: true });
    return ticket;
  }

  /**
   * Sends queued calls to ready threads, the least loaded first, each up to `depth` held;
   * then starts one thread for each call still waiting (counting those already starting),
   * up to `maxThreads`; keeps `warmThreads` alive, and starts the retirement clock of every
   * thread left idle.
   */
  private dispatch(): void {
    if (this.closed) return;
    while (this.queue.length > 0) {
      const thread = this.leastLoaded();
      if (thread === undefined) break;
      const ticket = this.queue.shift()!;
      this.disarmRetirement(thread);
      ticket.thread = thread;
      thread.send(ticket);
    }
    let starting = this.slots.filter((t) => t !== undefined && !t.isReady).length;
    for (let i = 0; i < this.slots.length; i++) {
      const wanted = this.queue.length > starting || this.threads < this.warmThreads;
      if (!wanted) break;
      if (this.slots[i] !== undefined) continue;
      this.spawn(i);
      starting += 1;
    }
    for (const thread of this.slots) {
      if (thread?.isReady && thread.load === 0) this.armRetirement(thread);
    }
  }

  /**
   * The ready thread holding the fewest calculations, if one has room for another and is
   * not stuck in a slow one: nothing more piles up behind a calculation that has run
   * SLOW_MS, and calls wait here (or a second thread starts) instead.
   */
  private leastLoaded(): Thread | undefined {
    let best: Thread | undefined;
    for (const thread of this.slots) {
      if (thread === undefined || !thread.isReady || thread.load >= this.depth) continue;
      if (thread.runningFor() >= SLOW_MS) continue;
      if (best === undefined || thread.load < best.load) best = thread;
    }
    return best;
  }

  /** Stops `thread` once it has been idle for `idleMs`, unless only warm threads are left. */
  private armRetirement(thread: Thread): void {
    if (this.idle.has(thread)) return;
    const timer = setTimeout(() => this.retire(thread), this.idleMs);
    timer.unref(); // an idle pool never keeps the process alive
    this.idle.set(thread, timer);
  }

  private disarmRetirement(thread: Thread): void {
    const timer = this.idle.get(thread);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.idle.delete(thread);
  }

  private retire(thread: Thread): void {
    this.idle.delete(thread);
    const index = this.slots.indexOf(thread);
    if (this.closed || index < 0 || thread.load > 0) return;
    if (this.threads <= this.warmThreads) return;
    this.logger.debug({ slot: index, idleMs: this.idleMs }, 'stopping idle calculator thread');
    this.slots[index] = undefined;
    thread
      .terminate()
      .exited.catch((err: unknown) => this.logger.error({ err }, 'terminate failed'));
  }

  private spawn(index: number): Thread {
    const thread = new EvalThreadHandle(this.url, this.limits, this.maxEvalMs, this.events);
    this.slots[index] = thread;
    thread.ready.then(
      () => this.dispatch(),
      () => undefined, // reported through `ended`
    );
    return thread;
  }

  /**
   * Takes a thread out of its slot (terminating it if it still runs). The calculation it was
   * running is answered with why the thread ended; those it had not started go back to the
   * head of the queue, and a fresh thread serves them (dispatch). A thread that failed to
   * start is not restarted at once (it would fail again): the next call retries, and when no
   * thread is left the waiting calls are answered at once.
   */
  private replace(thread: Thread, why: ThreadDiedError | 'deadline'): void {
    const index = this.slots.indexOf(thread);
    if (index < 0) return;
    const death = why === 'deadline' ? why : why.death;
    this.logger.warn({ slot: index, why: death }, 'replacing calculator thread');
    this.slots[index] = undefined;
    this.disarmRetirement(thread);
    let jobs: HeldJobs<Ticket>;
    if (thread.exited) jobs = thread.takeJobs();
    else {
      const ending = thread.terminate();
      jobs = ending.jobs;
      ending.exited.catch((err: unknown) => this.logger.error({ err }, 'terminate failed'));
    }
    // Cut off for a deadline, the running call was answered already; if the thread had
    // moved on to another in that moment, that one runs again like the rest.
    const others = why === 'deadline' ? [jobs.running, ...jobs.unstarted] : jobs.unstarted;
    if (why !== 'deadline') jobs.running?.settle({ error: toCallerError(why) });
    const unstarted = others.filter((t): t is Ticket => t !== undefined && !t.done);
    for (const t of unstarted) t.thread = undefined;
    this.queue.unshift(...unstarted);
    if (this.closed) return;
    if (death !== 'startup_failed') this.dispatch();
    else if (this.slots.every((t) => t === undefined)) {
      for (const ticket of this.queue.splice(0)) ticket.settle({ error: cannotStart() });
    }
  }
}

function outcomeOf(reply: EvalReply): { result: CalcResult } | { error: Error } {
  if (reply.kind === 'result') return { result: reply.result };
  if (reply.kind === 'rejected') {
    return { error: new InvalidInputError(reply.message, { details: { reason: reply.reason } }) };
  }
  return { error: CaesarError.of('internal', { reason: `calculator failed: ${reply.message}` }) };
}

/** Maps what went wrong to the error the caller (and the SDK) reports. */
function toCallerError(err: unknown): Error {
  if (err instanceof ExpressionRejectedError) return err;
  if (err instanceof ThreadDiedError && err.death === 'overran') {
    return new TimeoutError(err.message, { cause: err });
  }
  if (err instanceof ThreadDiedError && err.death === 'out_of_memory') {
    return new InvalidInputError("the expression exceeds the calculator's resource limits", {
      details: { reason: 'resource_limit' },
      cause: err,
    });
  }
  return CaesarError.of(
    'internal',
    { reason: err instanceof Error ? err.message : String(err) },
    {
      cause: err,
    },
  );
}

/** The caller's own coded reason (the SDK aborts with one) or a TimeoutError. */
function deadlinePassed(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof CaesarError) return reason;
  return new TimeoutError('the calculation did not finish before its deadline');
}

function cannotStart(): CaesarError {
  return CaesarError.of('internal', {
    reason: 'the calculator could not start an evaluation thread',
  });
}

function shuttingDown(): CaesarError {
  return CaesarError.of(
    'internal',
    { reason: 'the calculator is shutting down' },
    { retryable: true },
  );
}
