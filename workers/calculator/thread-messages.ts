import type { CalcResult } from './schema.js';
import type { RejectReason } from './screen.js';

/**
 * Messages between the evaluator (main thread) and eval-thread.ts. Both ends are this
 * worker's own code in one process (structured clone, no wire), so plain types suffice.
 */

/** One expression to evaluate. */
export interface EvalRequest {
  readonly id: number;
  readonly expression: string;
}

/** Main -> thread: expressions to evaluate one after the other, in order. */
export type EvalBatch = readonly EvalRequest[];

/** Thread -> main, once, after the restricted instance is built and warmed up. */
interface ThreadReady {
  readonly kind: 'ready';
}

/** The answer to one EvalRequest, named by the request's id whatever its kind. */
export type EvalReply = { readonly id: number } & (
  | { readonly kind: 'result'; readonly result: CalcResult }
  | { readonly kind: 'rejected'; readonly reason: RejectReason; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string }
);

/**
 * Thread -> main: answers in the order asked, those of one batch together; but the thread
 * posts what it has before it starts the next expression once REPLY_FLUSH_MS has passed
 * since its last post, so a slow calculation does not hold the answers before it.
 */
interface EvalReplies {
  readonly kind: 'replies';
  readonly replies: readonly EvalReply[];
}

export type ThreadMessage = ThreadReady | EvalReplies;

/** Longest a thread keeps answers before it posts them (eval-thread.ts). */
export const REPLY_FLUSH_MS = 1;

/**
 * What a thread is computing, in memory both sides share (a SharedArrayBuffer the thread
 * gets as `workerData.progress`): the id of the request it runs (0 between batches) and
 * when it started it (`Date.now()`). The evaluator reads it to cut a calculation off at its
 * cap and, when a thread ends, to tell the calculation that ran from those that waited or
 * whose answers were not posted yet, which can run elsewhere.
 */
export class Progress {
  private readonly id: Int32Array;
  private readonly since: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(16)) {
    this.id = new Int32Array(buffer, 0, 1);
    this.since = new Float64Array(buffer, 8, 1);
  }

  /** Thread side: `id` starts now. The time is written first, so it is never older. */
  start(id: number): void {
    this.since[0] = Date.now();
    Atomics.store(this.id, 0, id);
  }

  /** Thread side: nothing runs until the next batch. */
  idle(): void {
    Atomics.store(this.id, 0, 0);
  }

  /** The request running now and since when, or undefined between batches. */
  running(): { id: number; since: number } | undefined {
    const id = Atomics.load(this.id, 0);
    return id === 0 ? undefined : { id, since: this.since[0]! };
  }
}
