export { startJobs, type Jobs } from './start.js';
