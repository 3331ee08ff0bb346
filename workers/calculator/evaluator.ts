import type { ResourceLimits } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import {
  assertScriptExists,
  CaesarError,
  compiledScriptUrl,
  InvalidInputError,
  TimeoutError,
} from '../../src/legion/index.js';
import { EvalThreadHandle, ThreadDiedError } from './eval-thread-handle.js';
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

/** A call in flight: settles once, whichever of reply, deadline or cap comes first. */
interface Ticket {
  readonly job: Job;
  /** Marks the call as running on `thread` and starts the maxEvalMs clock. */
  started(thread: EvalThreadHandle): void;
  settle(outcome: { result: CalcResult } | { error: Error }): void;
}

class EvaluatorPool implements Evaluator {
  private readonly url: URL;
  private readonly limits: ResourceLimits;
  private readonly maxEvalMs: number;
  private readonly warmThreads: number;
  private readonly idleMs: number;
  private readonly logger: Logger;
  private readonly slots: (EvalThreadHandle | undefined)[];
  private readonly queue: Ticket[] = [];
  /** The retirement clock of each idle thread. */
  private readonly idle = new Map<EvalThreadHandle, NodeJS.Timeout>();
  private closed = false;

  constructor(options: EvaluatorOptions) {
    this.url = options.threadUrl ?? compiledScriptUrl(import.meta.url, './eval-thread.js');
    this.limits = options.resourceLimits ?? DEFAULT_RESOURCE_LIMITS;
    this.maxEvalMs = options.maxEvalMs ?? 2000;
    const maxThreads = options.maxThreads ?? 2;
    this.warmThreads = Math.min(options.warmThreads ?? 0, maxThreads);
    this.idleMs = options.idleMs ?? 60_000;
    this.logger = options.logger ?? pino({ enabled: false });
    this.slots = new Array<EvalThreadHandle | undefined>(maxThreads).fill(undefined);
  }

  async start(): Promise<void> {
    assertScriptExists(this.url); // a threadUrl option is not checked by the constructor
    if (this.warmThreads === 0) return;
    const started = performance.now();
    const threads = this.slots.slice(0, this.warmThreads).map((_, i) => this.spawn(i));
    await Promise.all(threads.map((t) => t.ready));
    const ms = Math.round(performance.now() - started);
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
    await Promise.allSettled(threads.map((t) => t.terminate()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Wraps a job with its deadline (the caller's signal, from the moment of the call) and the
   * hard cap (from the moment a thread takes it). Either cuts the call off wherever it is:
   * still queued, it leaves the queue; running, its thread is terminated and replaced.
   */
  private ticket(job: Job): Ticket {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let runningOn: EvalThreadHandle | undefined;
    const cutOff = (error: Error): void => {
      const queued = this.queue.indexOf(ticket);
      if (queued >= 0) this.queue.splice(queued, 1);
      if (runningOn !== undefined) this.replace(runningOn, 'deadline');
      ticket.settle({ error });
    };
    const onAbort = (): void => cutOff(deadlinePassed(job.signal));
    const ticket: Ticket = {
      job,
      started: (thread) => {
        runningOn = thread;
        timer = setTimeout(() => cutOff(ranTooLong(this.maxEvalMs)), this.maxEvalMs);
      },
      settle: (outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        job.signal?.removeEventListener('abort', onAbort);
        if ('result' in outcome) job.resolve(outcome.result);
        else job.reject(outcome.error);
      },
    };
    job.signal?.addEventListener('abort', onAbort, { once: true });
    return ticket;
  }

  /**
   * Starts queued calls on idle ready threads, then starts one thread for each call still
   * waiting (counting those already starting), up to `maxThreads`; keeps `warmThreads`
   * alive, and starts the retirement clock of every thread left idle.
   */
  private dispatch(): void {
    if (this.closed) return;
    for (const thread of this.slots) {
      if (this.queue.length === 0) break;
      if (thread?.isReady && !thread.busy) this.runOn(thread, this.queue.shift()!);
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
      if (thread?.isReady && !thread.busy) this.armRetirement(thread);
    }
  }

  /** Stops `thread` once it has been idle for `idleMs`, unless only warm threads are left. */
  private armRetirement(thread: EvalThreadHandle): void {
    if (this.idle.has(thread)) return;
    const timer = setTimeout(() => this.retire(thread), this.idleMs);
    timer.unref(); // an idle pool never keeps the process alive
    this.idle.set(thread, timer);
  }

  private disarmRetirement(thread: EvalThreadHandle): void {
    clearTimeout(this.idle.get(thread));
    this.idle.delete(thread);
  }

  private retire(thread: EvalThreadHandle): void {
    this.idle.delete(thread);
    const index = this.slots.indexOf(thread);
    if (this.closed || index < 0 || thread.busy) return;
    if (this.threads <= this.warmThreads) return;
    this.logger.debug({ slot: index, idleMs: this.idleMs }, 'stopping idle calculator thread');
    this.slots[index] = undefined;
    thread.terminate().catch((err: unknown) => this.logger.error({ err }, 'terminate failed'));
  }

  private runOn(thread: EvalThreadHandle, ticket: Ticket): void {
    this.disarmRetirement(thread);
    const started = performance.now();
    ticket.started(thread);
    thread.run(ticket.job.expression).then(
      (reply) => {
        this.logger.debug({ ms: performance.now() - started, kind: reply.kind }, 'calculated');
        ticket.settle(outcomeOf(reply));
        this.dispatch();
      },
      (err: unknown) => {
        this.replace(thread, err instanceof ThreadDiedError ? err.death : 'crashed');
        ticket.settle({ error: toCallerError(err) });
        this.dispatch();
      },
    );
  }

  private spawn(index: number): EvalThreadHandle {
    const thread = new EvalThreadHandle(this.url, this.limits, (t, death) =>
      this.replace(t, death),
    );
    this.slots[index] = thread;
    thread.ready.then(
      () => this.dispatch(),
      () => undefined, // reported through the exit callback
    );
    return thread;
  }

  /**
   * Takes a thread out of its slot (terminating it if it still runs); a call still waiting
   * starts a fresh one (dispatch). A thread that failed to start is not restarted at once (it
   * would fail again): the next call retries, and when no thread is left the waiting calls
   * are answered at once.
   */
  private replace(thread: EvalThreadHandle, why: string): void {
    const index = this.slots.indexOf(thread);
    if (index < 0) return;
    this.logger.warn({ slot: index, why }, 'replacing calculator thread');
    this.slots[index] = undefined;
    this.disarmRetirement(thread);
    if (!thread.exited) {
      thread.terminate().catch((err: unknown) => this.logger.error({ err }, 'terminate failed'));
    }
    if (this.closed) return;
    if (why !== 'startup_failed') this.dispatch();
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
  return { error: new CaesarError('internal', `calculator failed: ${reply.message}`) };
}

/** Maps what went wrong to the error the caller (and the SDK) reports. */
function toCallerError(err: unknown): Error {
  if (err instanceof ThreadDiedError && err.death === 'terminated') return shuttingDown();
  if (err instanceof ExpressionRejectedError) {
    return err;
  }
  if (err instanceof ThreadDiedError && err.death === 'out_of_memory') {
    return new InvalidInputError("the expression exceeds the calculator's resource limits", {
      details: { reason: 'resource_limit' },
      cause: err,
    });
  }
  return new CaesarError('internal', err instanceof Error ? err.message : String(err), {
    cause: err,
  });
}

/** The caller's own coded reason (the SDK aborts with one) or a TimeoutError. */
function deadlinePassed(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof CaesarError) return reason;
  return new TimeoutError('the calculation did not finish before its deadline');
}

function ranTooLong(ms: number): TimeoutError {
  return new TimeoutError(`the calculation ran longer than ${ms} ms`);
}

function cannotStart(): CaesarError {
  return new CaesarError('internal', 'the calculator could not start an evaluation thread');
}

function shuttingDown(): CaesarError {
  return new CaesarError('internal', 'the calculator is shutting down', { retryable: true });
}
