import type { PlanAttempt } from './ports.js';

/**
 * No configured model answered a round: every provider (the primary and each fallback)
 * failed after its retries. `attempts` says what was tried; the agent words it for the user.
 */
export class PlannerUnavailableError extends Error {
  override readonly name = 'PlannerUnavailableError';
  readonly code = 'planner_unavailable';
  constructor(
    readonly attempts: readonly PlanAttempt[],
    message = 'no model could be reached',
  ) {
    super(message);
  }
}
