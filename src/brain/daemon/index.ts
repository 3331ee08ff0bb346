export { startBrain } from './brain.js';
export type { RunningBrain } from './brain.js';
export type { RestartReport } from './restart-audit.js';
