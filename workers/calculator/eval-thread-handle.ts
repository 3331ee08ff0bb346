import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { EvalReply, ThreadMessage } from './thread-messages.js';

/** How a thread ended while it held a calculation. */
type ThreadDeath = 'out_of_memory' | 'startup_failed' | 'crashed' | 'terminated';

/** The thread running a calculation died; the evaluator maps `death` to an error code. */
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

interface Pending {
  readonly id: number;
  resolve(reply: EvalReply): void;
  reject(err: ThreadDiedError): void;
}

/**
 * One evaluation thread: runs one calculation at a time and reports how it ended. The
 * owner terminates it on a deadline and replaces it after any exit.
 */
export class EvalThreadHandle {
  /** Resolves once the thread has built and warmed its mathjs instance. */
  readonly ready: Promise<void>;
  /** Set when the thread has exited (or is being terminated), for whatever reason. */
  exited = false;
  private readonly worker: Worker;
  private started = false;
  private pending: Pending | undefined;
  private lastError: Error | undefined;
  private nextId = 1;

  /**
   * @param onIdleExit called when the thread exits while it held no calculation (a thread
   *   holding one reports its end through the rejected run() instead).
   */
  constructor(
    url: URL,
    resourceLimits: ResourceLimits,
    onIdleExit: (thread: EvalThreadHandle, death: ThreadDeath) => void,
  ) {
    this.worker = new Worker(url, { resourceLimits, execArgv: [], stdout: false, stderr: false });
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (msg: ThreadMessage) => {
        if (msg.kind === 'ready') {
          this.started = true;
          resolve();
        } else this.settle(msg);
      });
      this.worker.on('error', (err) => {
        this.lastError = err;
      });
      this.worker.on('exit', (code) => {
        this.exited = true;
        const died = this.death(code);
        if (!this.started) reject(died);
        const pending = this.pending;
        this.pending = undefined;
        if (pending === undefined) onIdleExit(this, died.death);
        else pending.reject(died);
      });
    });
    // A failed start is reported through run() or the owner's await; never unhandled.
    this.ready.catch(() => undefined);
  }

  /** True once the thread is warm, until it exits. */
  get isReady(): boolean {
    return this.started && !this.exited;
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Sends one expression; settles with the thread's reply or a ThreadDiedError. */
  run(expression: string): Promise<EvalReply> {
    if (this.pending !== undefined) throw new Error('evaluation thread is busy');
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject };
      this.worker.postMessage({ id, expression });
    });
  }

  /** Stops the thread at once, even in the middle of a calculation (which is rejected). */
  async terminate(): Promise<void> {
    const pending = this.pending;
    this.pending = undefined;
    this.exited = true;
    pending?.reject(new ThreadDiedError('terminated', 'evaluation thread was terminated'));
    await this.worker.terminate();
  }

  private settle(reply: EvalReply): void {
    const pending = this.pending;
    if (pending === undefined || pending.id !== reply.id) return;
    this.pending = undefined;
    pending.resolve(reply);
  }

  private death(code: number): ThreadDiedError {
    const err = this.lastError;
    const detail = err?.message ?? `exit code ${code}`;
    if (!this.started) {
      return new ThreadDiedError('startup_failed', `evaluation thread failed to start: ${detail}`, {
        cause: err,
      });
    }
    if ((err as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new ThreadDiedError('out_of_memory', 'evaluation thread ran out of memory', {
        cause: err,
      });
    }
    return new ThreadDiedError('crashed', `evaluation thread exited: ${detail}`, { cause: err });
  }
}
