import type { z } from 'zod';
import { formatFieldPath } from '../text/index.js';

/**
 * One failing field of a tool input, a request or a file: `{path: 'target.entity_id[0]',
 * message: 'expected string'}`. The `details` of an `invalid_input` error are a list of
 * these, wherever the input was checked (the brain before the policy, a worker on arrival).
 */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** Most issues one refusal lists; the rest would only repeat the same mistake. */
export const MAX_FIELD_ISSUES = 20;

/**
 * One zod issue read as a field (issue 30: the one reading of zod issues): its path, a key no
 * schema names at its own path (`unknownKey` set), and zod's message without its
 * `Invalid input: ` prefix. Callers word the unknown key and place the path as their
 * readers expect (a file's `line:col`, an env var).
 */
export interface ZodField {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  /** The key at the end of `path` that no schema names (zod's `unrecognized_keys`). */
  readonly unknownKey?: string;
  readonly issue: z.core.$ZodIssue;
}

/** zod's issues as fields, `at` before each path, at most `max` of them. */
export function zodFields(
  issues: readonly z.core.$ZodIssue[],
  at: readonly PropertyKey[] = [],
  max = MAX_FIELD_ISSUES,
): ZodField[] {
  const out: ZodField[] = [];
  for (const issue of issues) {
    if (out.length >= max) break;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys.slice(0, max - out.length)) {
        const message = `unknown field '${key}'`;
        out.push({ path: [...at, ...issue.path, key], message, unknownKey: key, issue });
      }
      continue;
    }
    const message = issue.message.replace(/^Invalid input: /, '');
    out.push({ path: [...at, ...issue.path], message, issue });
  }
  return out;
}

/**
 * A zod error as field issues: `a.b[1].c` paths (`formatFieldPath`), `(root)` for the value
 * itself, an unknown key at its own path (`unknown field 'x'`), at most
 * {@link MAX_FIELD_ISSUES}; `at` is put before each path (a nested value's place).
 */
export function fieldIssuesOf(error: z.ZodError, at: readonly PropertyKey[] = []): FieldIssue[] {
  return zodFields(error.issues, at).map((f) => ({
    path: formatFieldPath(f.path),
    message: f.message,
  }));
}

/** `path: message; path: message`, for the one-line message next to the details. */
export function summariseFieldIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.path || '(input)'}: ${i.message}`).join('; ');
}

/**
 * Re-adds a nested parse's issues to the parse around it, under `at` (a transform or refine
 * that parses a part of its value with another schema). Each issue keeps its code and params,
 * so the reader of the outer error (an unknown key's did-you-mean, a file position) sees it
 * as if the outer schema had found it; `message` rewords each one.
 */
export function forwardIssues(
  ctx: z.core.$RefinementCtx,
  error: z.ZodError,
  at: readonly PropertyKey[] = [],
  message?: (issue: z.core.$ZodIssue) => string,
): void {
  for (const issue of error.issues) {
    const path = [...at, ...issue.path];
    const raw = { ...issue, path } as z.core.$ZodRawIssue;
    ctx.addIssue(message === undefined ? raw : { ...raw, message: message(issue) });
  }
}
