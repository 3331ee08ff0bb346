import { PolicyError, PolicyLoadError } from './errors.js';
import type { PolicyIssue } from './issues.js';

/**
 * What a policy store can say about itself (`GET /v1/policy`, `caesar policy status`): the
 * policy it enforces, whether the file on disk still holds those bytes, and why the last
 * reload was refused. The shape is the API's (snake_case), built here once.
 */

/**
 * `ok`: the file on disk is the enforced policy. `stale`: the file differs but loads (a
 * reload is about to run, or none can: the watcher failed). `broken`: the file on
 * disk cannot be loaded (bad YAML or grammar, missing, unreadable, too large), so the last
 * good policy stays enforced.
 */
export type PolicyState = 'ok' | 'stale' | 'broken';

/** Why a reload was refused, with where in the file when the problem has a place. */
export interface PolicyReloadError {
  /** ISO-8601 time of the refused reload. */
  readonly at: string;
  /** Catalogue code: `policy_invalid`, `policy_unreadable`, `policy_too_large`, ... */
  readonly code: string;
  /** The first problem (its path in the document and what is wrong), and how many more. */
  readonly message: string;
  readonly file: string;
  /** 1-based line of the first problem; null when it has no place (a missing file). */
  readonly line: number | null;
  readonly col: number | null;
}

export interface PolicyStatus {
  readonly status: PolicyState;
  readonly enforced: {
    readonly path: string;
    readonly sha256: string;
    /** ISO-8601 time the enforced policy was loaded. */
    readonly loaded_at: string;
    readonly rules: number;
  };
  readonly disk: {
    /** SHA-256 of the file's bytes now; null when it is missing or unreadable. */
    readonly sha256: string | null;
    readonly matches_enforced: boolean;
  };
  readonly last_reload_error: PolicyReloadError | null;
  /**
   * What loads but deserves a look in the enforced policy: its own warnings (a rule that never
   * applies) and, from the brain, each tool it names that no worker serves and no catalog
   * lists. Absent where the store alone answers.
   */
  readonly warnings?: readonly PolicyIssue[];
}

/** The reload error record of `err`, refused at `at`. */
export function reloadErrorOf(file: string, err: unknown, at: Date): PolicyReloadError {
  const code = err instanceof PolicyError ? err.code : 'internal';
  const base = { at: at.toISOString(), code, file };
  const [first, ...more] = err instanceof PolicyLoadError ? err.issues : [];
  if (first === undefined) {
    const message = err instanceof Error ? err.message : String(err);
    return { ...base, message, line: null, col: null };
  }
  const where = first.path === '' ? '' : `${first.path}: `;
  const others =
    more.length === 0 ? '' : ` (and ${more.length} more problem${more.length === 1 ? '' : 's'})`;
  return {
    ...base,
    message: `${where}${first.message}${others}`,
    line: first.line,
    col: first.column,
  };
}

/** `file:line:col` of a reload error, or the file alone when it has no place. */
export function reloadErrorPlace(error: PolicyReloadError): string {
  return error.line === null ? error.file : `${error.file}:${error.line}:${error.col ?? 1}`;
}

/**
 * The state from what is known: the disk's sha (null: unreadable), the enforced sha, and the
 * sha the last refused reload read (null when it could not read the file, undefined when the
 * last reload was not refused).
 */
export function policyState(
  diskSha: string | null,
  enforcedSha: string,
  refused: { sha: string | null } | undefined,
): PolicyState {
  if (diskSha === enforcedSha) return 'ok';
  if (diskSha === null) return 'broken';
  return refused !== undefined && refused.sha === diskSha ? 'broken' : 'stale';
}
