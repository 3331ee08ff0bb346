import { errorClass } from '../../errors/index.js';
import type { PlanAttempt } from './ports.js';

/**
 * No configured model answered a round: every provider (the primary and each fallback)
 * failed after its retries. `attempts` says what was tried; `tried` words it for the
 * template (`openai (gpt-4o-mini at api.openai.com) 429 rate limited x3`), by default from
 * the attempts. The agent words it for the user.
 */
export const PlannerUnavailableError = errorClass(
  'planner_unavailable',
  (attempts: readonly PlanAttempt[], tried?: string) => ({
    params: {
      tried:
        tried ?? (attempts.map((a) => `${a.provider} ${a.outcome}`).join('; ') || 'none was tried'),
    },
    fields: { attempts },
  }),
);
export type PlannerUnavailableError = InstanceType<typeof PlannerUnavailableError>;
