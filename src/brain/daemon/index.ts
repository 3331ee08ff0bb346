export { startBrain } from './brain.js';
