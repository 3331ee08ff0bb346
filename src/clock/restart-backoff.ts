/** When a crashed part of `caesar up` (a supervised child, the nats-server) starts again. */
export interface BackoffOptions {
  /** First restart delay; doubles per crash up to `maxBackoffMs`. @default 500 */
  backoffMs?: number;
  /** @default 30000 */
  maxBackoffMs?: number;
  /** A part that ran this long resets its backoff. @default 30000 */
  stableAfterMs?: number;
}

/**
 * The next restart of a part that crashed after running `ranMs`, having crashed `failures`
 * times in a row before: the new failure count and the delay. Shared by the supervisor
 * and the nats-server keeper, so every part of `caesar up` backs off alike.
 */
export function nextRestart(
  failures: number,
  ranMs: number,
  o: BackoffOptions,
): { failures: number; delayMs: number } {
  const n = ranMs >= (o.stableAfterMs ?? 30_000) ? 1 : failures + 1;
  const delayMs = Math.min((o.backoffMs ?? 500) * 2 ** (n - 1), o.maxBackoffMs ?? 30_000);
  return { failures: n, delayMs };
}
