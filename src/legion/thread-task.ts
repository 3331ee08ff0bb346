import { parentPort } from 'node:worker_threads';
import { CaesarError } from '../protocol/errors.js';
import type { TaskFailure, TaskRequest, ThreadMessage } from './thread-messages.js';

/**
 * The thread side of a {@link ThreadPool}: call it once, at the end of the thread's script,
 * with the step the thread runs. Each task's input arrives by structured clone; what `run`
 * returns (or resolves to) goes back the same way, so it must be plain data. A thrown
 * `CaesarError` keeps its code, `retryable` and `details`; anything else arrives as
 * `internal`. The bounds (heap, time) are the pool's: nothing here needs to check them.
 *
 * ```ts
 * // workers/my_tool/parse-thread.ts, compiled to parse-thread.js
 * import { serveThreadTask } from '../../src/legion/index.js';
 * import { parseAll } from './parse.js';
 * serveThreadTask(parseAll);
 * ```
 * @throws Error when not called inside a worker thread
 */
export function serveThreadTask<I, O>(run: (input: I) => O | Promise<O>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveThreadTask runs only inside a worker thread');
  const post = (message: ThreadMessage) => port.postMessage(message);
  port.on('message', (task: TaskRequest) => {
    void Promise.resolve()
      .then(() => run(task.input as I))
      .then(
        (output) => {
          try {
            post({ kind: 'done', id: task.id, output });
          } catch (err) {
            // an output structured clone cannot copy (a function, a class with private state)
            post({ kind: 'failed', id: task.id, error: failureOf(err) });
          }
        },
        (err: unknown) => post({ kind: 'failed', id: task.id, error: failureOf(err) }),
      );
  });
  post({ kind: 'ready' });
}

function failureOf(err: unknown): TaskFailure {
  if (err instanceof CaesarError) {
    const failure = { code: err.code, message: err.message, retryable: err.retryable };
    return err.details === undefined ? failure : { ...failure, details: err.details };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}
