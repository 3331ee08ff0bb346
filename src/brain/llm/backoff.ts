import type { LlmError } from './types.js';

/** How the chain waits between retries of one provider. */
export interface BackoffOptions {
  /** The first retry waits up to this long (full jitter). @default 500 */
  readonly baseMs: number;
  /** No jittered wait is longer. @default 8000 */
  readonly capMs: number;
  /**
   * The longest `Retry-After` the chain waits out. A server that asks for more is not retried
   * (no retry could succeed sooner); the next provider is tried at once. @default 30000
   */
  readonly retryAfterCapMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({
  baseMs: 500,
  capMs: 8000,
  retryAfterCapMs: 30_000,
});

/**
 * Exponential backoff with full jitter: a uniform wait in `[0, min(cap, base * 2^retry))`,
 * `retry` counting from 0 for the first retry. `random` returns `[0, 1)` like Math.random.
 */
export function jitteredDelay(retry: number, random: () => number, o: BackoffOptions): number {
  const ceiling = Math.min(o.capMs, o.baseMs * 2 ** retry);
  return Math.floor(Math.min(Math.max(random(), 0), 1) * ceiling);
}

/**
 * The wait before the next retry after `err`: the server's `Retry-After` when it gave one
 * (undefined when that is past `retryAfterCapMs`: do not retry), else the jittered backoff.
 */
export function retryDelay(
  retry: number,
  err: LlmError,
  random: () => number,
  o: BackoffOptions,
): number | undefined {
  const asked = err.options.retryAfterMs;
  if (asked !== undefined) return asked > o.retryAfterCapMs ? undefined : asked;
  return jitteredDelay(retry, random, o);
}
