import type { z } from 'zod';
import { formatFieldPath, formatPath } from '../text/index.js';

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
 * One zod issue read as a field (issue 30: `ZodError.issues` is read here and nowhere else,
 * `test/unit/protocol/one-zod-reading.test.ts`): its path, a key no schema names at its own
 * path (`unknownKey` set), and zod's message without its `Invalid input: ` prefix. Callers
 * word an unknown key and place the path as their readers expect (a file's `line:col`, an
 * env var).
 */
export interface ZodField {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  /** The key at the end of `path` that no schema names (zod's `unrecognized_keys`). */
  readonly unknownKey?: string;
  /** The field is about the key at the end of `path` (unknown, or refused by a record). */
  readonly isKey: boolean;
  readonly issue: z.core.$ZodIssue;
}

export interface ZodFieldOptions {
  /** Put before each path: the place of the value the schema read. */
  readonly at?: readonly PropertyKey[];
  /** At most this many fields. @default MAX_FIELD_ISSUES */
  readonly max?: number;
  /**
   * A value no branch of a union takes is read as the first branch that failed says, at the
   * union's path (a rule file's reader names the key a rule got wrong, not "Invalid input").
   * @default false: the union's own issue
   */
  readonly unionBranch?: boolean;
}

/** zod's message without its `Invalid input: ` prefix: the words every reader shows. */
export function zodMessage(issue: z.core.$ZodIssue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/**
 * A zod error's issues as fields. An unknown key is one field per key at its own path
 * (`unknown field 'x'`), unless the schema worded it itself (an `error` map's words are kept,
 * at the object's path); a record key a schema refuses reads `invalid key 'k': why`.
 */
export function zodFields(error: z.ZodError, options: ZodFieldOptions = {}): ZodField[] {
  const { at = [], max = MAX_FIELD_ISSUES, unionBranch = false } = options;
  const out: ZodField[] = [];
  for (const outer of error.issues) {
    if (out.length >= max) break;
    const issue = unionBranch ? firstFailingBranch(outer) : outer;
    const path = [...at, ...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.message.startsWith('Unrecognized key')) {
      for (const key of issue.keys.slice(0, max - out.length)) {
        const message = `unknown field '${key}'`;
        out.push({ path: [...path, key], message, unknownKey: key, isKey: true, issue });
      }
    } else if (issue.code === 'invalid_key') {
      const why = issue.issues[0]?.message ?? issue.message;
      const message = `invalid key '${String(issue.path.at(-1))}': ${why}`;
      out.push({ path, message, isKey: true, issue });
    } else {
      out.push({ path, message: zodMessage(issue), isKey: false, issue });
    }
  }
  return out;
}

/** A document's `issueAt` (src/text's YAML reader): `key` points at a map key, not its value. */
export type IssueAt<T> = (path: readonly PropertyKey[], message: string, key?: string) => T;

/**
 * A zod error's fields placed in a document (a policy, intents or cases file): a field about
 * a key (unknown, refused, or named by a custom issue's `params.key`) points at the key
 * itself; `words` rewords a field (an unknown key's did-you-mean). Every field, unbounded:
 * the document's size bounds them.
 */
export function placeZodFields<T>(
  issueAt: IssueAt<T>,
  error: z.ZodError,
  options: Omit<ZodFieldOptions, 'max'> & { words?: (field: ZodField) => string } = {},
): T[] {
  const { words = (f: ZodField) => f.message, ...rest } = options;
  return zodFields(error, { ...rest, max: Number.POSITIVE_INFINITY }).map((f) => {
    const message = words(f);
    if (f.isKey) return issueAt(f.path.slice(0, -1), message, String(f.path.at(-1)));
    const { issue } = f;
    const named: unknown = issue.code === 'custom' ? issue.params?.['key'] : undefined;
    return typeof named === 'string' ? issueAt(f.path, message, named) : issueAt(f.path, message);
  });
}

/** The issue of the first failing branch of a union, at the union's path; others as they are. */
function firstFailingBranch(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  let current = issue;
  while (current.code === 'invalid_union') {
    const first = current.errors.find((branch) => branch.length > 0)?.[0];
    if (first === undefined) return current;
    current = { ...first, path: issue.path };
  }
  return current;
}

/**
 * A zod error as field issues: `a.b[1].c` paths (`formatFieldPath`), `(root)` for the value
 * itself, an unknown key at its own path (`unknown field 'x'`), at most
 * {@link MAX_FIELD_ISSUES}; `at` is put before each path (a nested value's place).
 */
export function fieldIssuesOf(error: z.ZodError, at: readonly PropertyKey[] = []): FieldIssue[] {
  return zodFields(error, { at }).map((f) => ({
    path: formatFieldPath(f.path),
    message: f.message,
  }));
}

/**
 * The first thing a zod error finds wrong, as `path: message` (`a.b[1].c: expected string`);
 * `whole` names the value itself (`(root)`, `payload`, `body`). For a one-line refusal of a
 * value from outside (an answer, a reply, a stored row), where one reason is enough.
 */
export function describeFirstIssue(error: z.ZodError, whole = '(root)'): string {
  const [first] = zodFields(error, { max: 1 });
  if (first === undefined) return `${whole}: invalid`;
  return `${formatPath(first.path) || whole}: ${first.message}`;
}

/** The first issue's path (`''` for the value itself) and message; undefined when none. */
export function firstFieldIssue(error: z.ZodError): FieldIssue | undefined {
  const [first] = zodFields(error, { max: 1 });
  return first === undefined ? undefined : { path: formatPath(first.path), message: first.message };
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

/**
 * A strict object's `error` map for a tool's config section: an unknown key is refused with
 * the keys the section takes (`unknown key 'x'; web_search takes a, b`), kept as written by
 * {@link zodFields}. Other issues keep zod's words.
 */
export function unknownKeysWords(
  section: string,
  known: readonly string[],
): (issue: z.core.$ZodRawIssue) => string | undefined {
  return (issue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown key ${issue.keys.map((k) => `'${k}'`).join(', ')}; ${section} takes ${known.join(', ')}`
      : undefined;
}
