/**
 * Why `caesar up` restarted a worker, and the most restarts one value may claim, without
 * zod: the CLI declares `legion serve-tool --restart-reason` from these before any heavy
 * module loads (ADR 0047). The wire schema is in `restarts.ts`.
 */

/** Why `caesar up` restarted a part; the supervisor's `child_restarted` (`src/cli/stack/messages.ts`) uses this list. */
export const WORKER_RESTART_REASONS = ['unresponsive', 'memory', 'exited'] as const;
export type WorkerRestartReason = (typeof WORKER_RESTART_REASONS)[number];

/** The most restarts one value may claim: a bound on what a worker says, not a policy. */
export const MAX_RESTART_COUNT = 1_000_000_000;
