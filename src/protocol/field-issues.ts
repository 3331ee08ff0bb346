import type { z } from 'zod';

/**
 * One failing field of a tool input, a request or a file: `{path: 'target.entity_id',
 * message: 'expected string'}`. The `details` of an `invalid_input` error are a list of
 * these, wherever the input was checked (the brain before the policy, a worker on arrival).
 */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** Most issues one refusal lists; the rest would only repeat the same mistake. */
export const MAX_FIELD_ISSUES = 20;

/** A zod error as field issues: dotted paths, `(root)` for the value itself. */
export function fieldIssuesOf(error: z.ZodError): FieldIssue[] {
  return error.issues.slice(0, MAX_FIELD_ISSUES).map((i) => ({
    path: i.path.map(String).join('.') || '(root)',
    message: i.message,
  }));
}

/** `path: message; path: message`, for the one-line message next to the details. */
export function summariseFieldIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.path || '(input)'}: ${i.message}`).join('; ');
}
