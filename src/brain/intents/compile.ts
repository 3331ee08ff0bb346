import { compileIntent, type CompiledIntent } from './compile-intent.js';
import { invalidIntents, type IntentsError, type IntentsIssue } from './errors.js';
import { IntentSet } from './intent-set.js';
import { IntentSpecSchema, IntentsFileSchema } from './schema.js';
import { MAX_YAML_BYTES, readYaml, type YamlDocument } from '../../text/index.js';
import type { z } from 'zod';
import { placeZodFields } from '../../protocol/index.js';
import { intentsWords } from './zod-issues.js';

/** Most sentence readings in one file: bounds the work one message can cause. */
const MAX_TOTAL_VARIANTS = 2000;

/**
 * Compiles the text of an intents file named `file` (the name is only used in messages).
 * Throws IntentsError `intents_invalid` listing every problem as file:line:column.
 */
export function parseIntents(text: string, file: string): IntentSet {
  const source = readYaml(text);
  if (source.issues.length > 0) throw invalidIntents(file, source.issues);
  const issues: IntentsIssue[] = [];
  const top = IntentsFileSchema.safeParse(source.value);
  if (!top.success) {
    issues.push(...zodIssues(source, top.error, []));
    throw invalidIntents(file, sorted(issues));
  }
  const intents = compileRules(top.data.intents, source, issues);
  if (issues.length > 0) throw invalidIntents(file, sorted(issues));
  const set = new IntentSet(file, intents);
  issues.push(...checkExamples(set, source));
  if (issues.length > 0) throw invalidIntents(file, sorted(issues));
  return set;
}

/** Compiles each rule that passes the schema; problems go to `issues`. */
function compileRules(
  raws: readonly unknown[],
  source: YamlDocument,
  issues: IntentsIssue[],
): CompiledIntent[] {
  const intents: CompiledIntent[] = [];
  const names = new Map<string, number>();
  let variants = 0;
  raws.forEach((raw, i) => {
    const base = ['intents', i];
    const parsed = IntentSpecSchema.safeParse(raw);
    if (!parsed.success) {
      issues.push(...zodIssues(source, parsed.error, base));
      return;
    }
    const { intent, problems } = compileIntent(parsed.data);
    for (const p of problems) issues.push(source.issueAt([...base, ...p.path], p.message, p.key));
    const first = names.get(intent.name);
    if (first !== undefined) {
      const message = `intent name '${intent.name}' is already used by intents[${first}]`;
      issues.push(source.issueAt([...base, 'name'], message));
    } else names.set(intent.name, i);
    variants += intent.sentences.reduce((n, s) => n + s.variants.length, 0);
    if (variants > MAX_TOTAL_VARIANTS) {
      const message = `the file's sentences expand to more than ${MAX_TOTAL_VARIANTS} readings`;
      issues.push(source.issueAt([...base, 'sentences'], message));
      variants = -Infinity; // reported once
    }
    intents.push(intent);
  });
  return intents;
}

/** Fixed moment for the example check: examples must not depend on the date. */
const EXAMPLE_CONTEXT = { now: new Date(0), timeZone: 'UTC' };

/** Each `example:` must be answered by its own rule, so the "I can ..." list never lies. */
function checkExamples(set: IntentSet, source: YamlDocument): IntentsIssue[] {
  const issues: IntentsIssue[] = [];
  set.intents.forEach(({ name, example }, i) => {
    if (example === undefined) return;
    const winner = set.match(example, EXAMPLE_CONTEXT)?.intent;
    if (winner === name) return;
    const message =
      winner === undefined
        ? `example '${example}' is not matched by any sentence of this rule`
        : `example '${example}' is matched by the earlier rule '${winner}' instead`;
    issues.push(source.issueAt(['intents', i, 'example'], message));
  });
  return issues;
}

/** The error for a file past the shared reader's size bound (MAX_YAML_BYTES). */
export function fileTooLarge(file: string, bytes: number): IntentsError {
  const message = `YAML: the text is ${bytes} bytes, over the limit of ${MAX_YAML_BYTES} bytes`;
  return invalidIntents(file, [{ path: '', line: 1, column: 1, message }]);
}

function zodIssues(
  source: YamlDocument,
  error: z.ZodError,
  base: readonly (string | number)[],
): IntentsIssue[] {
  return placeZodFields((...a) => source.issueAt(...a), error, { at: base, words: intentsWords });
}

function sorted(issues: readonly IntentsIssue[]): IntentsIssue[] {
  return [...issues].sort((a, b) => a.line - b.line || a.column - b.column);
}
