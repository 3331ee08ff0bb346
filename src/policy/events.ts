import type { PolicyIssue } from './issues.js';
import type { PolicyReloadError } from './status.js';

/**
 * What started a reload: the file watcher, the reload signal (SIGHUP), or an explicit
 * `reload()` call (API).
 */
export type ReloadTrigger = 'watch' | 'signal' | 'manual';

/**
 * A new policy is live. The brain audits it as `policy.reloaded`; the fields the audit catalogue
 * requires (`path`, `policy_sha256`, `previous_sha256`, `rules`) are named as it names them.
 */
export interface PolicyReloadedEvent {
  readonly type: 'policy.reloaded';
  readonly path: string;
  readonly policy_sha256: string;
  readonly previous_sha256: string;
  /** Number of rules in the new policy. */
  readonly rules: number;
  /** False when the file's bytes did not change (an explicit reload of the same file). */
  readonly changed: boolean;
  readonly warnings: readonly PolicyIssue[];
  readonly duration_ms: number;
  readonly trigger: ReloadTrigger;
}

/**
 * A reload was refused; the last good policy (`kept_sha256`) stays live. Audited as
 * `policy.reload_failed`: `error` is the whole message (every issue as file:line:col), `code`
 * the PolicyError code and `issues` the structured problems.
 */
export interface PolicyReloadFailedEvent {
  readonly type: 'policy.reload_failed';
  readonly path: string;
  readonly kept_sha256: string;
  readonly error: string;
  readonly code: string;
  readonly issues: readonly PolicyIssue[];
  /** The refusal as `GET /v1/policy` reports it: the first problem's file:line:col. */
  readonly first: PolicyReloadError;
  readonly trigger: ReloadTrigger;
}

export type PolicyEvent = PolicyReloadedEvent | PolicyReloadFailedEvent;

/** Event map for the store's typed EventEmitter. */
export interface PolicyEventMap {
  'policy.reloaded': [PolicyReloadedEvent];
  'policy.reload_failed': [PolicyReloadFailedEvent];
}
