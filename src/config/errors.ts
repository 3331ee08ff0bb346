import { errorClass } from '../errors/index.js';

/** One problem in the configuration, naming where it came from. */
export interface ConfigIssue {
  /**
   * Where the bad value came from: `/abs/caesar.yaml:3:5` for a YAML node, the env var
   * name (`CAESAR_BUS__URL`), `CAESAR_CONFIG`, `overrides` or `defaults`.
   */
  readonly source: string;
  /** Dotted snake_case key path, such as `bus.reconnect_wait` or `tools.web_search.url`. */
  readonly path: string;
  readonly message: string;
}

/** `source: path: message`, the form terminals and editors link. */
function formatConfigIssue(issue: ConfigIssue): string {
  const where = issue.path === '' ? '' : `${issue.path}: `;
  return `${issue.source}: ${where}${issue.message}`;
}

/**
 * The configuration could not be loaded. `issues` lists every problem at once (file,
 * env and overrides together), each naming its source and key path.
 */
export const ConfigError = errorClass('config_invalid', (issues: readonly ConfigIssue[]) => ({
  params: {
    count: `${issues.length} problem${issues.length === 1 ? '' : 's'}`,
    problems: issues.map((i) => `\n  ${formatConfigIssue(i)}`).join(''),
  },
  fields: { issues: Object.freeze(issues.map((i) => Object.freeze({ ...i }))) },
}));
export type ConfigError = InstanceType<typeof ConfigError>;
