import { errorClass, errorFamily, type CodedError } from '../errors/index.js';
import type { PolicyIssue } from './issues.js';
import { formatIssue } from './issues.js';

/**
 * The policy module's failures, each a class generated from the one catalogue (ADR 0087).
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

/** Any error thrown by `src/policy`: `err instanceof PolicyError` tests the code. */
export const PolicyError = errorFamily<PolicyErrorCode>('PolicyError', [
  'policy_invalid',
  'policy_unreadable',
  'policy_too_large',
  'policy_not_configured',
  'policy_cases_invalid',
  'policy_closed',
]);
export type PolicyError = CodedError<PolicyErrorCode>;

/** The template's values for a file and its problems: the count, then one line each. */
function problems(file: string, issues: readonly PolicyIssue[]) {
  const count = `${issues.length} problem${issues.length === 1 ? '' : 's'}`;
  return { file, count, problems: issues.map((i) => `\n  ${formatIssue(file, i)}`).join('') };
}

/** The policy text does not parse or does not follow the grammar; `issues` say where. */
export const PolicyLoadError = errorClass(
  'policy_invalid',
  (file: string, issues: readonly PolicyIssue[]) => ({
    params: problems(file, issues),
    fields: { file, issues },
  }),
);
export type PolicyLoadError = InstanceType<typeof PolicyLoadError>;

/** A `caesar policy test` cases file does not parse or does not follow its schema. */
export const PolicyCasesError = errorClass(
  'policy_cases_invalid',
  (file: string, issues: readonly PolicyIssue[]) => ({
    params: problems(file, issues),
    fields: { file, issues },
  }),
);
export type PolicyCasesError = InstanceType<typeof PolicyCasesError>;

/** The policy file could not be read (missing, unreadable, not UTF-8). Retryable. */
export const PolicyReadError = errorClass('policy_unreadable', (file: string, cause: unknown) => ({
  params: { file, reason: cause instanceof Error ? cause.message : String(cause) },
  fields: { file },
  options: { cause },
}));
export type PolicyReadError = InstanceType<typeof PolicyReadError>;

/**
 * The policy file is larger than `policy.max_file_bytes`. Refused before it is read: a 10 MB
 * policy once held the event loop for 3.9 s and took the brain from 228 to 657 MB.
 */
export const PolicyTooLargeError = errorClass(
  'policy_too_large',
  (file: string, bytes: number, maxBytes: number) => ({
    params: { file, size: bytes, limit: maxBytes },
    fields: { file, bytes, maxBytes },
  }),
);
export type PolicyTooLargeError = InstanceType<typeof PolicyTooLargeError>;

/** No policy file is configured (reported by a reload of a store opened without a path). */
export const PolicyNotConfiguredError = errorClass('policy_not_configured', () => ({
  params: {},
}));
export type PolicyNotConfiguredError = InstanceType<typeof PolicyNotConfiguredError>;

/** The store was closed; it no longer reloads. */
export const PolicyClosedError = errorClass('policy_closed', (file: string) => ({
  params: { file },
}));
export type PolicyClosedError = InstanceType<typeof PolicyClosedError>;
