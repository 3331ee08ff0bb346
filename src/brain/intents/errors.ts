import { CaesarError } from '../../errors/index.js';
import { formatYamlIssue, type YamlIssue } from '../../text/index.js';

/**
 * Codes of the intent module's own failures (the catalogue's `local` intents codes, also
 * listed under "Intent errors" in docs/intents.md): an intents file that does not load stops
 * the brain at startup.
 */
type IntentsErrorCode = 'intents_invalid' | 'intents_unreadable' | 'intents_bad_context';

/** One problem in an intents file: the shared YAML reader's issue shape. */
export type IntentsIssue = YamlIssue;

/** `file:line:column: path: message`, the form editors and terminals link. */
export const formatIntentsIssue: (file: string, issue: IntentsIssue) => string = formatYamlIssue;

/** Base class of every error thrown by `src/brain/intents`. */
export class IntentsError extends CaesarError {
  declare readonly code: IntentsErrorCode;
  override name = 'IntentsError';
  /** The intents file at fault, when a file is. */
  readonly file: string | undefined;
  /** Every problem found, each with its line and column; empty unless `intents_invalid`. */
  readonly issues: readonly IntentsIssue[];

  constructor(
    code: IntentsErrorCode,
    message: string,
    options: {
      file?: string;
      issues?: readonly IntentsIssue[];
      cause?: unknown;
      retryable?: boolean;
    } = {},
  ) {
    super(code, message, options);
    this.file = options.file;
    this.issues = Object.freeze([...(options.issues ?? [])]);
  }
}

/** The intents text does not parse or does not follow the format; `issues` say where. */
export function invalidIntents(file: string, issues: readonly IntentsIssue[]): IntentsError {
  const n = issues.length;
  const head = `${file}: invalid intents file (${n} problem${n === 1 ? '' : 's'})`;
  const lines = issues.map((i) => `  ${formatIntentsIssue(file, i)}`);
  return new IntentsError('intents_invalid', [head, ...lines].join('\n'), { file, issues });
}
