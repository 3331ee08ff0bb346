import type { ResourceLimits } from 'node:worker_threads';
import {
  startThread,
  threadExitText,
  type Thread,
  type ThreadExit,
} from '../../src/legion/index.js';
import {
  Progress,
  type EvalReply,
  type EvalRequest,
  type ThreadMessage,
} from './thread-messages.js';

/** How a thread ended. `overran`: its calculation passed maxEvalMs and it was cut off. */
export type ThreadDeath = 'out_of_memory' | 'startup_failed' | 'crashed' | 'overran';

/** Why a thread ended, for the evaluator to map to an error code. */
export class ThreadDiedError extends Error {
  override readonly name = 'ThreadDiedError';
  constructor(
    readonly death: ThreadDeath,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What a thread computes: its owner's job, which carries the expression. */
export interface ThreadJob {
  readonly expression: string;
}

/** The calculations a thread held when it ended, for its owner to answer or hand on. */
export interface HeldJobs<J> {
  /** The one it was computing, if any. */
  readonly running: J | undefined;
  /**
   * The others, in order: those that waited, and those it finished whose answers it had not
   * posted. None of them caused the end; each can run elsewhere.
   */
  readonly unstarted: J[];
}

export interface ThreadEvents<J extends ThreadJob> {
  /** The thread answered `job`. */
  replied(job: J, reply: EvalReply): void;
  /**
   * The thread ended on its own (or was cut off for overrunning): it is gone, and its jobs
   * wait in `takeJobs()`. Never called after the owner's own `terminate()`.
   */
  ended(thread: EvalThreadHandle<J>, why: ThreadDiedError): void;
}

interface Sent<J> {
  readonly id: number;
  readonly job: J;
}

/**
 * One evaluation thread. It computes one expression at a time, in the order it was sent
 * them, and may be sent several (`load`) so it never waits for the next one between
 * calculations (ADR 0050). Which one runs, and since when, it writes to shared memory
 * (`Progress`): a calculation that has run `maxEvalMs` is cut off (`overran`), and when the
 * thread ends, the calculation that ran is told apart from the others it held.
 */
export class EvalThreadHandle<J extends ThreadJob> {
  /** Resolves once the thread has built and warmed its mathjs instance. */
  readonly ready: Promise<void>;
  /** Set when the thread has exited or is being terminated, for whatever reason. */
  exited = false;
  private readonly thread: Thread;
  private readonly progress = new Progress();
  private started = false;
  private readonly sent: Sent<J>[] = [];
  /** Requests queued in this turn of the event loop, posted together at its end. */
  private outbox: EvalRequest[] = [];
  private nextId = 1;
  private watchdog: NodeJS.Timeout | undefined;
  /**
   * The request that was running when the thread was judged to end (cut off, terminated,
   * exited): the thread may still move on for a moment after that, its progress with it.
   */
  private runningAtEnd: number | undefined;

  constructor(
    url: URL,
    resourceLimits: ResourceLimits,
    private readonly maxEvalMs: number,
    private readonly events: ThreadEvents<J>,
  ) {
    this.thread = startThread(url, {
      resourceLimits,
      workerData: { progress: this.progress.buffer },
    });
    this.ready = new Promise((resolve, reject) => {
      this.thread.onMessage((message) => {
        const msg = message as ThreadMessage;
        if (msg.kind === 'ready') {
          this.started = true;
          resolve();
        } else this.settle(msg.replies);
      });
      this.thread.onExit((exit) => {
        if (this.exited) return; // terminated by its owner, who took its jobs
        this.end();
        const died = this.death(exit);
        if (!this.started) reject(died);
        this.events.ended(this, died);
      });
    });
    // A failed start is reported through `ended` or the owner's await; never unhandled.
    this.ready.catch(() => undefined);
  }

  /** True once the thread is warm, until it exits. */
  get isReady(): boolean {
    return this.started && !this.exited;
  }

  /** Calculations sent and not yet answered, the running one included. */
  get load(): number {
    return this.sent.length;
  }

  /** The calculation the thread is computing now, if any. */
  get running(): J | undefined {
    const now = this.progress.running();
    return now === undefined ? undefined : this.sent.find((s) => s.id === now.id)?.job;
  }

  /**
   * How long the calculation running now has run, in ms: 0 when none runs, and 0 when the
   * one the thread names was answered already. The thread posts a slow calculation's answer
   * before it marks itself idle, and a thread descheduled between the two (a busy machine)
   * would otherwise look stuck in it, with no event left to dispatch the next call.
   */
  runningFor(): number {
    const now = this.progress.running();
    if (now === undefined || !this.sent.some((s) => s.id === now.id)) return 0;
    return Date.now() - now.since;
  }

  /** Queues `job` on the thread; its answer comes through `events.replied`. */
  send(job: J): void {
    const id = this.nextId;
    this.nextId = id >= 0x7fffffff ? 1 : id + 1; // ids share an Int32Array with the thread
    if (this.sent.length === 0) this.armWatchdog(this.maxEvalMs);
    this.sent.push({ id, job });
    if (this.outbox.length === 0) queueMicrotask(() => this.post());
    this.outbox.push({ id, expression: job.expression });
  }

  /** One message for every call sent in one turn (a read from NATS carries several). */
  private post(): void {
    const batch = this.outbox;
    this.outbox = [];
    if (!this.exited) this.thread.postMessage(batch);
  }

  /** The jobs the thread held, taken once (after `ended`, or by `terminate`). */
  takeJobs(): HeldJobs<J> {
    const runningId = this.runningAtEnd ?? this.progress.running()?.id;
    const sent = this.sent.splice(0);
    const at = runningId === undefined ? -1 : sent.findIndex((s) => s.id === runningId);
    const running = at < 0 ? undefined : sent.splice(at, 1)[0]!.job;
    return { running, unstarted: sent.map((s) => s.job) };
  }

  /** Stops the thread at once, even mid-calculation; returns the jobs it held. */
  terminate(): { jobs: HeldJobs<J>; exited: Promise<void> } {
    if (!this.exited) this.end();
    const jobs = this.takeJobs();
    return { jobs, exited: this.thread.terminate().then(() => undefined) };
  }

  private settle(replies: readonly EvalReply[]): void {
    for (const reply of replies) {
      const head = this.sent[0];
      if (this.exited || head === undefined || head.id !== reply.id) return;
      this.sent.shift();
      if (this.sent.length === 0) this.stopWatchdog();
      this.events.replied(head.job, reply);
    }
  }

  /**
   * One timer per thread rather than one per calculation: when it fires it reads how long
   * the calculation running now has run, and waits again for the rest of its allowance.
   */
  private armWatchdog(ms: number): void {
    this.watchdog ??= setTimeout(() => this.checkOverrun(), ms);
  }

  private checkOverrun(): void {
    this.watchdog = undefined;
    if (this.exited || this.sent.length === 0) return;
    const now = this.progress.running();
    const ran = now === undefined ? 0 : Date.now() - now.since;
    if (ran < this.maxEvalMs) {
      this.armWatchdog(Math.max(1, this.maxEvalMs - ran));
      return;
    }
    this.end(now?.id);
    void this.thread.terminate();
    this.events.ended(
      this,
      new ThreadDiedError('overran', `the calculation ran longer than ${this.maxEvalMs} ms`),
    );
  }

  /** Marks the thread ended, and which request ran then (read now unless given). */
  private end(runningId = this.progress.running()?.id): void {
    this.exited = true;
    this.runningAtEnd = runningId;
    this.stopWatchdog();
  }

  private stopWatchdog(): void {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  private death(exit: ThreadExit): ThreadDiedError {
    const err = 'error' in exit ? exit.error : undefined;
    const detail = threadExitText(exit);
    if (!this.started) {
      return new ThreadDiedError('startup_failed', `evaluation thread failed to start: ${detail}`, {
        cause: err,
      });
    }
    if (exit.how === 'out_of_memory') {
      return new ThreadDiedError('out_of_memory', 'evaluation thread ran out of memory', {
        cause: err,
      });
    }
    return new ThreadDiedError('crashed', `evaluation thread exited: ${detail}`, { cause: err });
  }
}
