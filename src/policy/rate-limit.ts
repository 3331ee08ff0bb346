/**
 * Sliding-window limit: at most `limit` calls in any window of `windowMs`. It keeps the times
 * of the last `limit` admitted calls in a ring, so a check is O(1) and memory is bounded.
 */
export class SlidingWindowLimiter {
  private readonly times: Float64Array;
  private head = 0;
  private count = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    this.times = new Float64Array(limit);
  }

  /** Milliseconds until another call may be admitted; 0 means now. */
  waitMs(now: number): number {
    if (this.count < this.limit) return 0;
    const free = (this.times[this.head] ?? 0) + this.windowMs - now;
    return free > 0 ? free : 0;
  }

  /** Records an admitted call. Call only after `waitMs(now)` returned 0. */
  record(now: number): void {
    if (this.count < this.limit) {
      this.times[(this.head + this.count) % this.limit] = now;
      this.count++;
      return;
    }
    this.times[this.head] = now;
    this.head = (this.head + 1) % this.limit;
  }
}

/** Principals with a window of their own in one rule, at most; the oldest window goes first. */
const MAX_PRINCIPAL_WINDOWS = 4096;

/**
 * One rate-limited rule's windows: one shared by every caller, or, for a rule that names
 * principals or groups, one per principal (ADR 0096), made at a principal's first counted call.
 */
export class RuleWindows {
  readonly #shared: SlidingWindowLimiter | null;
  readonly #each = new Map<string, SlidingWindowLimiter>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly perPrincipal: boolean,
  ) {
    this.#shared = perPrincipal ? null : new SlidingWindowLimiter(limit, windowMs);
  }

  /**
   * The window that counts `principal`'s calls; with `make` false, null when it has made none
   * (so an explanation for a principal leaves nothing behind).
   */
  of(principal: string | undefined, make: boolean): SlidingWindowLimiter | null {
    if (this.#shared !== null) return this.#shared;
    const key = principal ?? '';
    const known = this.#each.get(key);
    if (known !== undefined || !make) return known ?? null;
    if (this.#each.size >= MAX_PRINCIPAL_WINDOWS) {
      const oldest = this.#each.keys().next().value;
      if (oldest !== undefined) this.#each.delete(oldest);
    }
    const made = new SlidingWindowLimiter(this.limit, this.windowMs);
    this.#each.set(key, made);
    return made;
  }
}
