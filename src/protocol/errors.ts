import { CaesarError, errorMessage, type CaesarErrorOptions } from '../errors/index.js';

/**
 * The wire's error codes and the errors tool authors throw. Every code, with its status,
 * retryability and message template, is in the one catalogue (src/errors/catalogue.ts,
 * docs/errors.md); the wire carries the `worker` and `brain` kinds (`WIRE_ERROR_CODES`).
 *
 * These classes are the SDK's public API, written by hand (ADR 0087, `HAND_WRITTEN`): a tool
 * author throws them with words of their own, and those words fill the one `{reason}` of the
 * code's template (`new BackendError('SearXNG answered HTTP 500')` reads "the backend failed:
 * SearXNG answered HTTP 500").
 */
export { CaesarError, WIRE_ERROR_CODES, isWireErrorCode } from '../errors/index.js';

/** Input failed the tool's schema; `details` lists `{path, message}` per failing field. */
export class InvalidInputError extends CaesarError {
  override readonly name: string = 'InvalidInputError';
  constructor(message: string, options: Omit<CaesarErrorOptions, 'retryable'> = {}) {
    super('invalid_input', message, options);
  }
}

/** The tool's backend is missing configuration (URL, credentials). */
export class NotConfiguredError extends CaesarError {
  override readonly name: string = 'NotConfiguredError';
  constructor(reason: string, options: Omit<CaesarErrorOptions, 'retryable'> = {}) {
    super('not_configured', errorMessage('not_configured', { reason }), options);
  }
}

/** The backend the tool talks to failed; retryable unless told otherwise. */
export class BackendError extends CaesarError {
  override readonly name: string = 'BackendError';
  constructor(reason: string, options: CaesarErrorOptions = {}) {
    super('backend_error', errorMessage('backend_error', { reason }), options);
  }
}

/**
 * The backend answered, but could not do the work (a search whose engines were all down): its
 * empty answer says nothing about the world, and must not look like "no results".
 */
export class UpstreamEmptyError extends CaesarError {
  override readonly name: string = 'UpstreamEmptyError';
  constructor(reason: string, options: CaesarErrorOptions = {}) {
    super('upstream_empty', errorMessage('upstream_empty', { reason }), options);
  }
}

/** The work ran past its deadline. */
export class TimeoutError extends CaesarError {
  override readonly name: string = 'TimeoutError';
  constructor(reason: string, options: Omit<CaesarErrorOptions, 'retryable'> = {}) {
    super('timeout', errorMessage('timeout', { reason }), options);
  }
}
