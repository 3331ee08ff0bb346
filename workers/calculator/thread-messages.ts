import type { CalcResult } from './schema.js';
import type { RejectReason } from './screen.js';

/**
 * Messages between the evaluator (main thread) and eval-thread.ts. Both ends are this
 * worker's own code in one process (structured clone, no wire), so plain types suffice.
 */

/** Main -> thread: evaluate one expression. */
export interface EvalRequest {
  readonly id: number;
  readonly expression: string;
}

/** Thread -> main, once, after the restricted instance is built and warmed up. */
interface ThreadReady {
  readonly kind: 'ready';
}

/** Thread -> main: the answer to one EvalRequest. */
export type EvalReply =
  | { readonly kind: 'result'; readonly id: number; readonly result: CalcResult }
  | {
      readonly kind: 'rejected';
      readonly id: number;
      readonly reason: RejectReason;
      readonly message: string;
    }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };

export type ThreadMessage = ThreadReady | EvalReply;
