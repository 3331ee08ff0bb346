import type { ResourceLimits } from 'node:worker_threads';
import { startThread, threadExitText, type Thread, type ThreadExit } from '../process/index.js';
import type { TaskFailure, ThreadMessage } from './thread-messages.js';

/**
 * How a thread ended: cut off for running past its time bound (`overran`), stopped by its
 * owner (`stopped`: an aborted call, an idle thread, shutdown), out of heap, failed to start,
 * or any other exit (`crashed`).
 */
export type ThreadEnd = 'overran' | 'stopped' | 'out_of_memory' | 'startup_failed' | 'crashed';

/** A task did not get its answer because its thread ended. */
export class ThreadEndedError extends Error {
  override readonly name = 'ThreadEndedError';
  constructor(
    readonly end: ThreadEnd,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A task's own failure, as the thread reported it. */
export class TaskFailedError extends Error {
  override readonly name = 'TaskFailedError';
  constructor(readonly failure: TaskFailure) {
    super(failure.message);
  }
}

interface Running {
  readonly id: number;
  readonly resolve: (output: unknown) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * One worker thread of a pool: started with resource limits, it runs one task at a time,
 * each under a time bound after which the thread is terminated. Whatever ends it, the task
 * it ran (if any) is rejected with a {@link ThreadEndedError} saying how, and `onEnd` tells
 * the owner, once.
 */
export class TaskThread {
  /** Resolves when the script has loaded; rejects if the thread ends before that. */
  readonly ready: Promise<void>;
  private readonly thread: Thread;
  private started = false;
  private ended: ThreadEnd | undefined;
  private running: Running | undefined;
  private nextId = 1;

  constructor(
    script: URL,
    resourceLimits: ResourceLimits,
    private readonly onEnd: (thread: TaskThread, end: ThreadEnd) => void,
  ) {
    this.thread = startThread(script, { resourceLimits });
    this.ready = new Promise((resolve, reject) => {
      this.thread.onMessage((message) => {
        const msg = message as ThreadMessage;
        if (msg.kind === 'ready') {
          this.started = true;
          resolve();
        } else this.settle(msg);
      });
      this.thread.onExit((exit) => {
        const end = this.endOf(exit);
        if (!this.started) reject(this.endedError(end, exit));
        this.finish(end, exit);
      });
    });
    this.ready.catch(() => undefined); // reported through onEnd and to whoever awaits it
  }

  /** Alive and still loading its script. */
  get starting(): boolean {
    return !this.started && this.ended === undefined;
  }

  /** Started, alive and running nothing. */
  get idle(): boolean {
    return this.started && this.ended === undefined && this.running === undefined;
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  /**
   * Runs one task; rejects with TaskFailedError (the task threw) or ThreadEndedError (the
   * thread ended first, `overran` when it ran `boundMs`, after which it is terminated).
   */
  run(input: unknown, boundMs: number): Promise<unknown> {
    if (!this.idle) return Promise.reject(new Error('TaskThread.run on a busy or ended thread'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => void this.stop('overran'), boundMs);
      this.running = { id, resolve, reject, timer };
      this.thread.postMessage({ id, input });
    });
  }

  /** Terminates the thread at once, even mid-task; its task (if any) is rejected with `end`. */
  stop(end: ThreadEnd = 'stopped'): Promise<void> {
    this.finish(end);
    return this.thread.terminate().then(() => undefined);
  }

  private settle(msg: Exclude<ThreadMessage, { kind: 'ready' }>): void {
    const task = this.running;
    if (task === undefined || task.id !== msg.id || this.ended !== undefined) return;
    this.running = undefined;
    clearTimeout(task.timer);
    if (msg.kind === 'done') task.resolve(msg.output);
    else task.reject(new TaskFailedError(msg.error));
  }

  /** Marks the thread ended (the first reason wins), rejects its task, tells the owner. */
  private finish(end: ThreadEnd, exit?: ThreadExit): void {
    if (this.ended !== undefined) return;
    this.ended = end;
    const task = this.running;
    this.running = undefined;
    if (task !== undefined) {
      clearTimeout(task.timer);
      task.reject(this.endedError(end, exit));
    }
    this.onEnd(this, end);
  }

  /** Why a thread its owner did not stop exited. */
  private endOf(exit: ThreadExit): ThreadEnd {
    if (!this.started) return 'startup_failed';
    return exit.how === 'out_of_memory' ? 'out_of_memory' : 'crashed';
  }

  private endedError(end: ThreadEnd, exit?: ThreadExit): ThreadEndedError {
    const cause = exit !== undefined && 'error' in exit ? exit.error : undefined;
    const detail = exit === undefined ? end : threadExitText(exit);
    return new ThreadEndedError(end, detail, { cause });
  }
}
