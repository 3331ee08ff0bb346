import { formatYamlIssue, type YamlIssue } from '../text/index.js';

/** One problem (or warning) in a policy file: the shared YAML reader's issue shape. */
export type PolicyIssue = YamlIssue;

/** `file:line:column: path: message`, the form editors and terminals link. */
export const formatIssue: (file: string, issue: PolicyIssue) => string = formatYamlIssue;
