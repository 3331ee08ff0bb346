import { CaesarError, errorMessage } from '../errors/index.js';
import type { PolicyIssue } from './issues.js';
import { formatIssue } from './issues.js';

/**
 * Codes of the policy module's own failures, listed under "Policy errors" in `docs/errors.md`.
 * They are not wire codes: a policy error never travels in a reply envelope (the brain refuses
 * to start, or keeps the last good policy and audits `policy.reload_failed`). Decisions
 * (deny, confirm, rate_limited) are outcomes, not errors.
 */
type PolicyErrorCode =
  | 'policy_invalid'
  | 'policy_unreadable'
  | 'policy_too_large'
  | 'policy_not_configured'
  | 'policy_cases_invalid'
  | 'policy_closed';

/**
 * Base class of every error thrown by `src/policy`: a `CaesarError` whose code is one of the
 * catalogue's `local` policy codes (never a wire code), with `retryable` from the catalogue.
 */
export class PolicyError extends CaesarError {
  declare readonly code: PolicyErrorCode;
  override name = 'PolicyError';

  constructor(
    code: PolicyErrorCode,
    message: string,
    options?: { cause?: unknown; retryable?: boolean },
  ) {
    super(code, message, options);
  }
}

/** A file of the policy module's that does not parse or follow its grammar; `issues` say where. */
abstract class PolicyIssuesError extends PolicyError {
  readonly file: string;
  readonly issues: readonly PolicyIssue[];

  constructor(
    code: 'policy_invalid' | 'policy_cases_invalid',
    what: string,
    file: string,
    issues: readonly PolicyIssue[],
  ) {
    super(code, summarise(file, what, issues));
    this.file = file;
    this.issues = issues;
  }
}

/** The policy text does not parse or does not follow the grammar; `issues` say where. */
export class PolicyLoadError extends PolicyIssuesError {
  override name = 'PolicyLoadError';

  constructor(file: string, issues: readonly PolicyIssue[]) {
    super('policy_invalid', 'policy', file, issues);
  }
}

/** A `caesar policy test` cases file does not parse or does not follow its schema. */
export class PolicyCasesError extends PolicyIssuesError {
  override name = 'PolicyCasesError';

  constructor(file: string, issues: readonly PolicyIssue[]) {
    super('policy_cases_invalid', 'policy cases file', file, issues);
  }
}

/** The policy file could not be read (missing, unreadable, not UTF-8). Retryable. */
export class PolicyReadError extends PolicyError {
  override name = 'PolicyReadError';
  readonly file: string;

  constructor(file: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super('policy_unreadable', errorMessage('policy_unreadable', { file, reason: detail }), {
      cause,
    });
    this.file = file;
  }
}

/**
 * The policy file is larger than `policy.max_file_bytes`. Refused before it is read: a 10 MB
 * policy once held the event loop for 3.9 s and took the brain from 228 to 657 MB.
 */
export class PolicyTooLargeError extends PolicyError {
  override name = 'PolicyTooLargeError';
  readonly file: string;
  readonly bytes: number;
  readonly maxBytes: number;

  constructor(file: string, bytes: number, maxBytes: number) {
    super(
      'policy_too_large',
      errorMessage('policy_too_large', { file, size: bytes, limit: maxBytes }),
    );
    this.file = file;
    this.bytes = bytes;
    this.maxBytes = maxBytes;
  }
}

/** No policy file is configured (reported by a reload of a store opened without a path). */
export class PolicyNotConfiguredError extends PolicyError {
  override name = 'PolicyNotConfiguredError';

  constructor() {
    super('policy_not_configured', errorMessage('policy_not_configured', {}));
  }
}

/** The store was closed; it no longer reloads. */
export class PolicyClosedError extends PolicyError {
  override name = 'PolicyClosedError';

  constructor(file: string) {
    super('policy_closed', errorMessage('policy_closed', { file }));
  }
}

function summarise(file: string, what: string, issues: readonly PolicyIssue[]): string {
  const head = `${file}: invalid ${what} (${issues.length} problem${issues.length === 1 ? '' : 's'})`;
  return [head, ...issues.map((i) => `  ${formatIssue(file, i)}`)].join('\n');
}
