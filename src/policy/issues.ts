/** One problem (or warning) in a policy file, pointing at the node that caused it. */
export interface PolicyIssue {
  /** Dotted path into the document, e.g. `allowed_services[1].target.entity_id`. */
  readonly path: string;
  /** 1-based line of the offending node. */
  readonly line: number;
  /** 1-based column of the offending node. */
  readonly column: number;
  readonly message: string;
}

/** `file:line:column: path: message`, the form editors and terminals link. */
export function formatIssue(file: string, issue: PolicyIssue): string {
  const where = issue.path === '' ? '' : `${issue.path}: `;
  return `${file}:${issue.line}:${issue.column}: ${where}${issue.message}`;
}
