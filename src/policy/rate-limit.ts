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
