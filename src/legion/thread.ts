/**
 * The SDK inside a worker thread: what a thread script (`serveThreadTask(step)`) and the
 * modules its step runs import. The main entry (`index.ts`) loads the NATS client, zod and
 * pino, a tenth of a second and several MB per thread started that a step never uses; this
 * one loads the coded errors and wall-clock time only. Tool code on the main thread imports
 * `index.ts`.
 */
export { serveThreadTask } from './thread-task.js';
export { BackendError, CaesarError, InvalidInputError, TimeoutError } from '../protocol/errors.js';
export {
  DAY_MS,
  formatDate,
  formatInstant,
  intlClock,
  isTimeZone,
  offsetClock,
  UTC_CLOCK,
  wallFromMs,
  wallMs,
} from '../clock/wall-clock.js';
export type { Clock, Wall } from '../clock/wall-clock.js';
