export { startJobs, type Jobs } from './start.js';
export type { JobSubmission } from './job-queue.js';
