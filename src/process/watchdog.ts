import { compiledScriptUrl } from './script-url.js';
import { startThread } from './thread.js';
import type { WatchdogThreadData } from './watchdog-thread.js';

/**
 * A process's own watchdog (ADR 0070): a small thread that SIGKILLs the process when its
 * main event loop has not run for `timeoutMs`. The main thread bumps a shared counter from a
 * timer; a loop blocked in synchronous work (a parser bug, a hostile input, a library loop)
 * never runs that timer, and signal handlers it would run never run either, so nothing but
 * another thread can end it. The thread sleeps in `Atomics.wait`, holds no event loop work of
 * its own and does not keep the process alive.
 *
 * Under `caesar up` the supervisor's heartbeat ends a stuck child first, with the reason; this
 * thread is what ends one whose supervisor is gone (killed by SIGKILL, say), and the only
 * watchdog of a worker or brain started by hand or by systemd.
 */

export interface WatchdogOptions {
  /** How long the main event loop may not run before the process is killed. */
  readonly timeoutMs: number;
  /** How often the main thread says it runs. @default min(1000, timeoutMs / 4) */
  readonly intervalMs?: number;
  /** Names the process in the line written before the kill, e.g. `worker calculator`. */
  readonly label: string;
}

/** A running watchdog. */
export interface Watchdog {
  /** Stops the timer and the thread; the process is no longer watched. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the watchdog for this process. The thread runs with small heap limits (its one
 * loop allocates almost nothing).
 */
export function startWatchdog(options: WatchdogOptions): Watchdog {
  const intervalMs = options.intervalMs ?? heartbeatIntervalMs(options.timeoutMs);
  // [0]: the main thread's beat counter, [1]: set to stop the thread
  const beat = new Int32Array(new SharedArrayBuffer(8));
  const timer = setInterval(() => Atomics.add(beat, 0, 1), intervalMs);
  timer.unref();
  const workerData: WatchdogThreadData = {
    beat,
    timeoutMs: options.timeoutMs,
    pollMs: Math.max(10, Math.min(intervalMs, 250)),
    label: options.label,
  };
  const thread = startThread(compiledScriptUrl(import.meta.url, './watchdog-thread.js'), {
    workerData,
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1, stackSizeMb: 1 },
    unref: true,
  });
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(timer);
        Atomics.store(beat, 1, 1);
        Atomics.notify(beat, 1);
        await thread.terminate();
      })()),
  };
}

/**
 * How often a process says it runs, for a watchdog or supervisor that waits `timeoutMs`: four
 * beats per timeout, at most one a second, at least one every 50 ms.
 */
export function heartbeatIntervalMs(timeoutMs: number): number {
  return Math.max(50, Math.min(1000, Math.floor(timeoutMs / 4)));
}
