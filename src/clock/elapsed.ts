// Durations in milliseconds, as CAESAR records and logs them (issue 30: each place rounded
// its own way). node: built-ins only.

/** A duration in ms as records carry it (reports, audit rows, replies): to the microsecond. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Milliseconds since `started` (a `performance.now()` reading), to the microsecond. */
export function msSince(started: number): number {
  return roundMs(performance.now() - started);
}

/** A duration for a person, to a tenth of a second: `secondsText(10_000)` is `10.0 s`. */
export function secondsText(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Whole milliseconds since `started` (a `performance.now()` reading), for log lines. */
export function wholeMsSince(started: number): number {
  return Math.round(performance.now() - started);
}
