import { writeSync } from 'node:fs';
import { isMainThread, workerData } from 'node:worker_threads';

/** What `startWatchdog` (watchdog.ts) gives its thread. */
export interface WatchdogThreadData {
  /** [0]: the main thread's beat counter, [1]: set to stop the thread. */
  readonly beat: Int32Array;
  readonly timeoutMs: number;
  readonly pollMs: number;
  readonly label: string;
}

/**
 * The entry of the watchdog's thread (ADR 0070), started by URL rather than from an eval'd
 * source string (ADR 0082): it sleeps in `Atomics.wait` and SIGKILLs the process when the
 * main thread's beat counter has not moved for `timeoutMs`, after one JSON log line on
 * stderr. Loaded in the main thread (watchdog.ts imports only its type), it does nothing.
 */
if (!isMainThread) watch(workerData as WatchdogThreadData);

function watch({ beat, timeoutMs, pollMs, label }: WatchdogThreadData): void {
  let seen = Atomics.load(beat, 0);
  let since = performance.now();
  for (;;) {
    Atomics.wait(beat, 1, 0, pollMs);
    if (Atomics.load(beat, 1) !== 0) return;
    const now = Atomics.load(beat, 0);
    if (now !== seen) {
      seen = now;
      since = performance.now();
      continue;
    }
    const silent = performance.now() - since;
    if (silent >= timeoutMs) kill(label, silent, timeoutMs);
  }
}

function kill(label: string, silentMs: number, timeoutMs: number): void {
  const line = JSON.stringify({
    level: 50,
    time: Date.now(),
    pid: process.pid,
    component: 'watchdog',
    silent_ms: Math.round(silentMs),
    // src/process stands apart from src/clock (layer 0): the words of secondsText, inline
    msg: `${label}: the event loop has not run for ${(silentMs / 1000).toFixed(1)} s (watchdog timeout ${timeoutMs / 1000} s): killing this process (SIGKILL)`,
  });
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // stderr gone: the kill still says enough
  }
  process.kill(process.pid, 'SIGKILL');
}
