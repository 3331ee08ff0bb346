import { errorClass } from '../../errors/index.js';

/**
 * `confirm()` was given an id with no pending call: unknown, already used, expired, or voided
 * by a policy reload. One error for all four, so ids cannot be probed.
 */
export const ConfirmationNotFoundError = errorClass('confirmation_not_found', (id: string) => ({
  params: { id: JSON.stringify(id.slice(0, 64)) },
}));
export type ConfirmationNotFoundError = InstanceType<typeof ConfirmationNotFoundError>;
