// Public surface of the clock: time in IANA zones, as the brain, the config and the workers
// (through the SDK) read and word it; durations as records carry them; the one bounded wait
// (`waitAtMost`). node: built-ins only.
export { msSince, roundMs, secondsText } from './elapsed.js';
export { waitAtMost } from './wait-at-most.js';
export { formatInstant, hostTimeZone, intlClock, isTimeZone, spokenNow } from './wall-clock.js';
export { nextRestart } from './restart-backoff.js';
export type { BackoffOptions } from './restart-backoff.js';
