import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  compilePolicy,
  PolicyEngine,
  PolicyLoadError,
  type CompiledPolicy,
} from '../../src/policy/index.js';
import { DECISION_OUTCOMES } from '../../src/policy/decision.js';
import { FUZZ_TIME_MS, fuzzParameters } from './parameters.js';

/**
 * Untrusted policy text: whatever an operator (or an attacker with write access to a
 * mounted config) puts in the file, loading either succeeds or fails with a PolicyLoadError
 * that points into the file; it never throws anything else, never overflows the stack and
 * never takes long. Whatever loads then evaluates any call without throwing or stalling.
 */

/**
 * Per case: far above what a policy of a few KB takes (about a millisecond), and above what
 * the generator's largest inputs (megabytes of nested indentation, refused by the size cap)
 * take on a machine at load 10; a pathological parse takes minutes, not seconds.
 */
const SLOW_MS = 10_000;

const POLICY_DIR = join(import.meta.dirname, '../../policy');
const SEEDS = [
  readFileSync(join(POLICY_DIR, 'policy.yaml'), 'utf8'),
  ...readdirSync(join(POLICY_DIR, 'examples'))
    .filter((f) => f.endsWith('.yaml') && !f.endsWith('.cases.yaml'))
    .map((f) => readFileSync(join(POLICY_DIR, 'examples', f), 'utf8')),
];

/** Fragments that have broken YAML readers and policy compilers before. */
const FRAGMENTS = [
  ': ',
  '- ',
  '\n  ',
  '\n    - ',
  '\t',
  '[',
  ']',
  '{',
  '}',
  '&a ',
  '*a',
  '<<: *a\n',
  '? ',
  '---\n',
  '...\n',
  '%YAML 1.1\n',
  '!!binary ',
  '!!js/function ',
  '!!python/object ',
  '"\\u0435"',
  'е',
  '\u200b',
  '\uFEFF',
  "pattern: '(\\w+\\s?)*'",
  "pattern: '(a+)+$'",
  "pattern: '(?<=a)b'",
  "pattern: '(a)\\1'",
  'max_length: 3',
  'min_length: 99999999999999999999',
  'entity_id: all',
  'service: switch.freez\u0435r',
  'tool: call_service',
  'confirm: true',
  'rate_limit: 1/0s',
  'rate_limit: 99999999999/1ms',
  'rate_limit: 3/turn',
  'rate_limit: [1/1m, 2/turn, 3/turn]',
  'flow: {after_untrusted: allow}\n',
  'flow:\n  private_match: shared_words\n',
  'after_private: deny',
  'after_untrusted: maybe',
  '__proto__: {x: 1}',
  'constructor: {prototype: {x: 1}}',
  'version: 2',
  'null',
  '~',
  '0x10',
  '1e400',
  "'",
  '"',
  '#',
];

const edit = fc.oneof(
  fc.record({ at: fc.nat(), cut: fc.integer({ min: 1, max: 40 }) }).map((e) => ({ ...e, put: '' })),
  fc.record({ at: fc.nat(), cut: fc.constant(0), put: fc.constantFrom(...FRAGMENTS) }),
  fc.record({ at: fc.nat(), cut: fc.nat(3), put: fc.string({ maxLength: 6 }) }),
);

const mutated = fc
  .tuple(fc.constantFrom(...SEEDS), fc.array(edit, { minLength: 1, maxLength: 6 }))
  .map(([text, edits]) =>
    edits.reduce((t, e) => {
      const at = e.at % (t.length + 1);
      return t.slice(0, at) + e.put + t.slice(at + e.cut);
    }, text),
  );

/** Deep nesting in flow style, block style, or both. */
const deep = fc
  .record({ depth: fc.integer({ min: 1, max: 6000 }), style: fc.constantFrom('flow', 'block') })
  .map(({ depth, style }) => {
    if (style === 'flow') {
      return `version: 1\nallowed_tools:\n  - tool: calculator\n    input:\n      x: ${'['.repeat(depth)}1${']'.repeat(depth)}\n`;
    }
    let text = 'version: 1\nallowed_tools:\n  - tool: calculator\n    input:\n';
    for (let i = 0; i < depth; i++) text += `${'  '.repeat(i + 3)}a${i}:\n`;
    return text;
  });

/** Alias bombs: each level doubles the previous one. */
const aliases = fc.integer({ min: 1, max: 40 }).map((levels) => {
  let text = 'x0: &a0 [1, 2]\n';
  for (let i = 1; i <= levels; i++) text += `x${i}: &a${i} [*a${i - 1}, *a${i - 1}]\n`;
  return `${text}version: 1\n`;
});

const policyText = fc.oneof(mutated, deep, aliases, fc.string({ maxLength: 200 }));

/** Patterns that backtrack in a backtracking engine, and plain ones. */
const PATTERNS = [
  '(\\w+\\s?)*',
  '(a+)+',
  '(a|aa)+',
  '(.*a){12}',
  '([a-z]+)*[0-9]',
  '[0-9+*/(). -]+',
  '.*(password|api[_ ]?key).*',
];

const hostileInput = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `${'a'.repeat(n)}!`),
  fc.integer({ min: 1, max: 2_000 }).map((n) => `${'ab1 '.repeat(n)}!`),
);

const ruleWithPattern = fc
  .record({
    pattern: fc.constantFrom(...PATTERNS),
    deny: fc.boolean(),
    maxLength: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
  })
  .map(({ pattern, deny, maxLength }) => {
    const limit = maxLength === undefined ? '' : `, max_length: ${maxLength}`;
    const rule = `  - tool: web_search\n    input:\n      query: { pattern: '${pattern}'${limit} }\n`;
    return deny
      ? `version: 1\nallowed_tools: [web_search]\ndenied_tools:\n${rule}`
      : `version: 1\nallowed_tools:\n${rule}`;
  });

/** Runs `run`, then fails if it took longer than SLOW_MS (a thrown error passes through). */
function timed<T>(what: string, run: () => T): T {
  const started = performance.now();
  const result = run();
  const ms = performance.now() - started;
  if (ms > SLOW_MS) throw new Error(`${what} took ${Math.round(ms)} ms`);
  return result;
}

/** Loads, or fails only the documented way; either way within SLOW_MS. */
function load(text: string): CompiledPolicy | undefined {
  let policy: CompiledPolicy | undefined;
  const started = performance.now();
  try {
    policy = compilePolicy(text, { file: 'policy.yaml' });
  } catch (err) {
    if (!(err instanceof PolicyLoadError)) throw err;
    expect(err.issues.length).toBeGreaterThan(0);
    for (const issue of err.issues) expect(issue.line).toBeGreaterThanOrEqual(1);
  }
  const ms = performance.now() - started;
  if (ms > SLOW_MS) throw new Error(`loading the policy took ${Math.round(ms)} ms`);
  return policy;
}

describe('fuzz: policy YAML', () => {
  test(
    'any text loads or fails with a positioned PolicyLoadError, quickly',
    () => {
      let runs = 0;
      fc.assert(
        fc.property(policyText, (text) => {
          runs++;
          load(text);
        }),
        fuzzParameters({ numRuns: 2_000 }),
      );
      expect(runs).toBeGreaterThanOrEqual(50);
    },
    FUZZ_TIME_MS + 30_000,
  );

  test(
    'a loaded policy decides any call with a pattern rule at once, whatever the input',
    () => {
      let runs = 0;
      fc.assert(
        fc.property(ruleWithPattern, hostileInput, (text, query) => {
          runs++;
          const policy = load(text);
          if (policy === undefined) return; // refused at load, with its reason
          const engine = new PolicyEngine(policy);
          const decision = timed(`a decision on a ${query.length}-character query`, () =>
            engine.evaluate({ tool: 'web_search', input: { query } }),
          );
          expect(DECISION_OUTCOMES).toContain(decision.outcome);
        }),
        fuzzParameters({ numRuns: 500 }),
      );
      expect(runs).toBeGreaterThanOrEqual(50);
    },
    FUZZ_TIME_MS + 30_000,
  );
});
