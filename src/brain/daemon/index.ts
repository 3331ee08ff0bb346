export { startBrain } from './brain.js';
export type { RunningBrain, StartBrainOptions } from './brain.js';
export { BrainCore } from './core.js';
export { PreflightCache, describePreflight, preflightState, preflightView } from './preflight.js';
export type { PreflightResult, PreflightState } from './preflight.js';
