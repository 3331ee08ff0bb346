export { startBrain } from './brain.js';
export { PreflightCache, describePreflight } from './preflight.js';
