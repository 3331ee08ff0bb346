import { CaesarError, errorMessage } from '../../errors/index.js';

/**
 * `confirm()` was given an id with no pending call: unknown, already used, expired, or voided
 * by a policy reload. One error for all four, so ids cannot be probed.
 */
export class ConfirmationNotFoundError extends CaesarError {
  override readonly name = 'ConfirmationNotFoundError';
  constructor(id: string) {
    super(
      'confirmation_not_found',
      errorMessage('confirmation_not_found', { id: JSON.stringify(id.slice(0, 64)) }),
    );
  }
}
