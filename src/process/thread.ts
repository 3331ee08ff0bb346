import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';

/**
 * How a thread ended, read once here from Worker's `error` and `exit` events so no caller
 * derives it again:
 * - `returned`: its script ran out of work and the thread exited with code 0;
 * - `threw`: an uncaught exception (or a script that failed to load) ended it;
 * - `crashed`: it exited with a non-zero code and no error (`process.exit(n)` in the thread);
 * - `terminated`: its owner called {@link Thread.terminate} before it ended on its own;
 * - `out_of_memory`: it reached its `resourceLimits` (`ERR_WORKER_OUT_OF_MEMORY`).
 */
export type ThreadExit =
  | { readonly how: 'returned'; readonly code: 0 }
  | { readonly how: 'threw'; readonly code: number; readonly error: Error }
  | { readonly how: 'crashed'; readonly code: number }
  | { readonly how: 'terminated'; readonly code: number }
  | { readonly how: 'out_of_memory'; readonly code: number; readonly error: Error };

export interface ThreadOptions {
  /** Cloned to the thread as `workerData`. */
  readonly workerData?: unknown;
  /** Moved, not copied, with `workerData` (a MessagePort, say). */
  readonly transferList?: readonly Transferable[];
  /** The thread's heap and stack bounds; absent: Node's defaults. */
  readonly resourceLimits?: ResourceLimits;
  /**
   * Node flags of the thread. The parent's own flags (`--inspect`, a test runner's loader,
   * `--max-old-space-size`) are no business of a thread, so none are passed by default.
   * @default []
   */
  readonly execArgv?: readonly string[];
  /**
   * The thread does not keep the process alive: a watchdog, or a thread idle until the
   * owner posts to it (the owner may `ref()` it while it works). @default false
   */
  readonly unref?: boolean;
}

/** A running thread, started by {@link startThread}. */
export interface Thread {
  /** Settles once, when the thread has exited, saying how. Never rejects. */
  readonly exited: Promise<ThreadExit>;
  /** The thread's own `Worker`, for test hooks that stop or watch one. */
  readonly worker: Worker;
  postMessage(message: unknown, transferList?: readonly Transferable[]): void;
  /** Calls `listener` with every message the thread posts. */
  onMessage(listener: (message: unknown) => void): void;
  /** Calls `listener` once, synchronously on the `exit` event, with how it ended. */
  onExit(listener: (exit: ThreadExit) => void): void;
  ref(): void;
  unref(): void;
  /**
   * Stops the thread at once, even mid-task, and resolves with how it ended: `terminated`,
   * or how it had ended on its own before. Safe to call twice (the same promise).
   */
  terminate(): Promise<ThreadExit>;
}

/**
 * Starts a worker thread running the script at `url`: the one place in src/ and workers/
 * that constructs a `Worker` (issue 30, ADR 0082). The script is always plain JavaScript;
 * find it with `compiledScriptUrl(import.meta.url, './x-thread.js')`.
 */
export function startThread(url: URL, options: ThreadOptions = {}): Thread {
  const worker = new Worker(url, {
    workerData: options.workerData,
    transferList: options.transferList as Transferable[] | undefined,
    resourceLimits: options.resourceLimits,
    execArgv: [...(options.execArgv ?? [])],
  });
  if (options.unref === true) worker.unref();
  let error: Error | undefined;
  let terminating = false;
  let ended: ThreadExit | undefined;
  const exitListeners: ((exit: ThreadExit) => void)[] = [];
  // an 'error' event with no listener would be thrown in the parent: it is recorded instead
  worker.on('error', (err) => (error ??= err));
  const exited = new Promise<ThreadExit>((resolve) =>
    worker.once('exit', (code) => {
      ended = exitOf(code, error, terminating);
      for (const listener of exitListeners.splice(0)) listener(ended);
      resolve(ended);
    }),
  );
  let terminated: Promise<ThreadExit> | undefined;
  return {
    exited,
    worker,
    postMessage: (message, transferList) =>
      worker.postMessage(message, transferList as Transferable[] | undefined),
    onMessage: (listener) => void worker.on('message', listener),
    onExit: (listener) => {
      if (ended === undefined) exitListeners.push(listener);
      else listener(ended);
    },
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: () =>
      (terminated ??= (() => {
        if (ended === undefined) terminating = true;
        return worker.terminate().then(() => exited);
      })()),
  };
}

function exitOf(code: number, error: Error | undefined, terminating: boolean): ThreadExit {
  if ((error as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { how: 'out_of_memory', code, error: error! };
  }
  if (terminating) return { how: 'terminated', code };
  if (error !== undefined) return { how: 'threw', code, error };
  return code === 0 ? { how: 'returned', code: 0 } : { how: 'crashed', code };
}

/** How a thread ended, in words for a log line or an error: its error's message, `exit code 3`. */
export function threadExitText(exit: ThreadExit): string {
  switch (exit.how) {
    case 'threw':
    case 'out_of_memory':
      return exit.error.message;
    case 'terminated':
      return 'terminated by its owner';
    default:
      return `exit code ${exit.code}`;
  }
}
