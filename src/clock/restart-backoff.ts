/**
 * When a crashed part starts again: a supervised child or the nats-server under `caesar up`,
 * an MCP server under `caesar legion serve-mcp` (ADR 0095).
 */
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
 * times in a row before: the new failure count and the delay. Shared by the supervisor,
 * the nats-server keeper and serve-mcp's server keeper, so every restarted part backs off alike.
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
