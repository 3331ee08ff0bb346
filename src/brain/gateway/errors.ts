import { errorClass } from '../../errors/index.js';

/**
 * `confirm()` was given an id with no pending call: unknown, already used, expired, or voided
 * by a policy reload. One error for all four, so ids cannot be probed.
 */
export const ConfirmationNotFoundError = errorClass('confirmation_not_found', (id: string) => ({
  params: { id: JSON.stringify(id.slice(0, 64)) },
}));
export type ConfirmationNotFoundError = InstanceType<typeof ConfirmationNotFoundError>;

/**
 * `confirm()` by a caller the held call's rule does not let decide it (`approvers:`, ADR 0096).
 * The call stays pending for someone who may.
 */
export const ApproverRequiredError = errorClass(
  'approver_required',
  (id: string, approvers: string, rule: string, caller: string) => ({
    params: { id: JSON.stringify(id.slice(0, 64)), approvers, rule, caller },
  }),
);
export type ApproverRequiredError = InstanceType<typeof ApproverRequiredError>;
