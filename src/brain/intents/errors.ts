import { errorClass } from '../../errors/index.js';
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

/** What each code's error is made of. */
type IntentsErrorArgs =
  | [code: 'intents_invalid', file: string, issues: readonly IntentsIssue[]]
  | [code: 'intents_unreadable', file: string, reason: string, cause: unknown]
  | [code: 'intents_bad_context', field: 'now' | 'timeZone', expected: string];

/**
 * Every error thrown by `src/brain/intents`, generated from the catalogue (ADR 0087). `file`
 * is the intents file at fault, when a file is; `issues` every problem found, each with its
 * line and column (empty unless `intents_invalid`).
 */
export const IntentsError = errorClass<
  IntentsErrorCode,
  IntentsErrorArgs,
  { readonly file: string | undefined; readonly issues: readonly IntentsIssue[] }
>(['intents_invalid', 'intents_unreadable', 'intents_bad_context'], (...args) => {
  switch (args[0]) {
    case 'intents_invalid': {
      const [code, file, issues] = args;
      const count = `${issues.length} problem${issues.length === 1 ? '' : 's'}`;
      const problems = issues.map((i) => `\n  ${formatIntentsIssue(file, i)}`).join('');
      const fields = { file, issues: Object.freeze([...issues]) };
      return { code, params: { file, count, problems }, fields };
    }
    case 'intents_unreadable': {
      const [code, file, reason, cause] = args;
      const fields = { file, issues: [] };
      return { code, params: { file, reason }, fields, options: { cause, retryable: true } };
    }
    case 'intents_bad_context': {
      const [code, field, expected] = args;
      return { code, params: { field, expected }, fields: { file: undefined, issues: [] } };
    }
  }
});
export type IntentsError = InstanceType<typeof IntentsError>;

/** The intents text does not parse or does not follow the format; `issues` say where. */
export function invalidIntents(file: string, issues: readonly IntentsIssue[]): IntentsError {
  return new IntentsError('intents_invalid', file, issues);
}
