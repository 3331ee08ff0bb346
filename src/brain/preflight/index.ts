// Asking workers' preflight (`caesar.preflight.tool.<tool>`): a cache of the answers and the
// words for them. Its own module, apart from the daemon, so `caesar up` and `caesar legion
// list` can ask without loading the brain (ADR 0048).
export {
  PreflightCache,
  describePreflight,
  preflightState,
  preflightView,
  preflightWarns,
} from './preflight.js';
export type { PreflightResult, PreflightState } from './preflight.js';
// `caesar up` hears its workers' answers over IPC, not through the cache: the same
// operator's warnings, added the same way (ADR 0091).
export { withLimitWarnings } from './limits.js';
