import { parentPort, workerData } from 'node:worker_threads';
import { createCalculate, type Calculate } from './calculate.js';
import { ExpressionRejectedError } from './screen.js';
import {
  Progress,
  REPLY_FLUSH_MS,
  type EvalBatch,
  type EvalReply,
  type EvalRequest,
  type ThreadMessage,
} from './thread-messages.js';

/**
 * Entry point of one evaluation thread (node:worker_threads). The evaluator starts it with
 * resource limits and terminates it when a calculation passes its deadline, so nothing an
 * expression does here can hang or crash the worker process. Loaded from the compiled
 * dist/ tree only, as the build's one-file bundle of it when that is fresh: mathjs's 1,262
 * modules load in ~2 s, the few factories bundled in ~0.3 s (`compiledScriptUrl` in
 * src/process, ADR 0104).
 */

/** Expressions evaluated once at start so the first real call does not pay for warm-up. */
const WARM_UP = ['sqrt(16) + sin(pi / 2) ^ 2 * log(100, 10)', '5 km to miles'];

function answer(calculate: Calculate, request: EvalRequest): EvalReply {
  try {
    return { kind: 'result', id: request.id, result: calculate(request.expression) };
  } catch (err) {
    if (err instanceof ExpressionRejectedError) {
      return { kind: 'rejected', id: request.id, reason: err.reason, message: err.message };
    }
    return {
      kind: 'failed',
      id: request.id,
      message: err instanceof Error ? err.message : String(err),
    };
  }
}

function main(): void {
  const port = parentPort;
  if (port === null) throw new Error('eval-thread.js runs only as a worker thread');
  const calculate = createCalculate();
  for (const expression of WARM_UP) calculate(expression);
  const progress = new Progress((workerData as { progress: SharedArrayBuffer }).progress);
  port.on('message', (batch: EvalBatch) => {
    // Answers go back together (one message, one wake-up of the main thread, one write of
    // their replies to NATS), but a slow calculation does not hold those before it longer
    // than REPLY_FLUSH_MS. `progress` tells the evaluator which one runs, and since when.
    let replies: EvalReply[] = [];
    let since = performance.now();
    for (const request of batch) {
      progress.start(request.id);
      replies.push(answer(calculate, request));
      const now = performance.now();
      if (now - since < REPLY_FLUSH_MS) continue;
      port.postMessage({ kind: 'replies', replies } satisfies ThreadMessage);
      replies = [];
      since = now;
    }
    progress.idle();
    if (replies.length > 0) port.postMessage({ kind: 'replies', replies } satisfies ThreadMessage);
  });
  port.postMessage({ kind: 'ready' } satisfies ThreadMessage);
}

main();
