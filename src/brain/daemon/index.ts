export { startBrain } from './brain.js';
export type { RunningBrain } from './brain.js';
