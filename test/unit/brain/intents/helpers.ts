import { fileURLToPath } from 'node:url';
import { parseIntents } from '../../../../src/brain/intents/index.js';
import { IntentsError, type IntentsIssue } from '../../../../src/brain/intents/errors.js';
import type { IntentSet } from '../../../../src/brain/intents/intent-set.js';

/** The shipped rules, as the brain loads them by default. */
export const SHIPPED_FILE = fileURLToPath(
  new URL('../../../../config/intents.yaml', import.meta.url),
);

/** A Sunday morning in Berlin, the day clocks go forward (23-hour day). */
export const BERLIN = { now: new Date('2026-03-29T08:00:00Z'), timeZone: 'Europe/Berlin' };

/** Compiles a YAML text named `intents.yaml`. */
export function intentsOf(yaml: string): IntentSet {
  return parseIntents(yaml, 'intents.yaml');
}

/** One-rule file: `version: 1` and the given rule body (YAML, indented under `- `). */
export function ruleFile(rule: string): string {
  const body = rule
    .trim()
    .split('\n')
    .map((line, i) => (i === 0 ? `  - ${line}` : `    ${line}`))
    .join('\n');
  return `version: 1\nintents:\n${body}\n`;
}

/** The issues a refused file reports; fails the test when the file loads. */
export function issuesOf(yaml: string): readonly IntentsIssue[] {
  try {
    intentsOf(yaml);
  } catch (err) {
    if (err instanceof IntentsError && err.code === 'intents_invalid') return err.issues;
    throw err;
  }
  throw new Error('expected the intents file to be refused');
}
