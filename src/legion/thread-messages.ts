/**
 * Messages between a {@link ThreadPool} (a tool's main thread) and a thread serving
 * {@link serveThreadTask}. Both ends are the SDK's own code in one process (structured clone,
 * no wire), so plain types suffice; what a task carries is the tool's business.
 */

/** Pool -> thread: one task; a thread runs one at a time. */
export interface TaskRequest {
  readonly id: number;
  readonly input: unknown;
}

/** How a task's own failure crosses back: a CaesarError keeps its code and retryable. */
export interface TaskFailure {
  readonly message: string;
  readonly code?: string;
  readonly retryable?: boolean;
  readonly details?: unknown;
}

/** Thread -> pool: `ready` once its script has loaded, then one answer per task. */
export type ThreadMessage =
  | { readonly kind: 'ready' }
  | { readonly kind: 'done'; readonly id: number; readonly output: unknown }
  | { readonly kind: 'failed'; readonly id: number; readonly error: TaskFailure };
