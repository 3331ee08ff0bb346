import { CaesarError } from '../../errors/index.js';
import type { PlanAttempt } from './ports.js';

/**
 * No configured model answered a round: every provider (the primary and each fallback)
 * failed after its retries. `attempts` says what was tried; the agent words it for the user.
 */
export class PlannerUnavailableError extends CaesarError {
  declare readonly code: 'planner_unavailable';
  override readonly name = 'PlannerUnavailableError';
  constructor(
    readonly attempts: readonly PlanAttempt[],
    message = 'no model could be reached',
  ) {
    super('planner_unavailable', message);
  }
}
