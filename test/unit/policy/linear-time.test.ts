import { describe, expect, test } from 'vitest';
import { compilePolicy, PolicyLoadError } from '../../../src/policy/index.js';
import type { PolicyIssue } from '../../../src/policy/issues.js';
import { engineOf, svc, tool } from './helpers.js';

/**
 * Issue 11, finding 3: a rule `pattern: '(\w+\s?)*'` and an input of 33 letters and a `!`
 * held the brain's event loop for 44 s. Patterns run on RE2 (linear time); globs and the
 * numbers deny rules read are matched in linear time too; length checks run before patterns.
 * The time bounds below are generous (the old code took 44 s to hours on the same inputs), so
 * they hold on a loaded machine.
 */
const GENEROUS_MS = 2000;

function timed<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

const EVIL = '(\\w+\\s?)*';
const ISSUE_INPUT = `${'a'.repeat(33)}!`;

function allowAndDeny(constraint: string) {
  const allow = engineOf(
    `allowed_tools:\n  - tool: notes\n    input:\n      text: ${constraint}\n`,
  );
  const deny = engineOf(
    `allowed_tools: [notes]\ndenied_tools:\n  - tool: notes\n    input:\n      text: ${constraint}\n`,
  );
  return { allow: allow.engine, deny: deny.engine };
}

describe('patterns run in linear time (RE2)', () => {
  test("the issue's pattern and input are decided at once, in allow and deny rules", () => {
    const { allow, deny } = allowAndDeny(`{pattern: '${EVIL}'}`);
    for (const text of [ISSUE_INPUT, `${'ab '.repeat(33_333)}!`]) {
      const a = timed(() => allow.evaluate(tool('notes', { text })));
      expect(a.value.outcome).toBe('deny');
      expect(a.value.reason).toContain('must match');
      expect(a.ms).toBeLessThan(GENEROUS_MS);
      const d = timed(() => deny.evaluate(tool('notes', { text })));
      expect(d.value.outcome).toBe('allow');
      expect(d.ms).toBeLessThan(GENEROUS_MS);
    }
    expect(allow.evaluate(tool('notes', { text: 'ab cd' })).outcome).toBe('allow');
    expect(deny.evaluate(tool('notes', { text: 'AB cd' })).outcome).toBe('deny');
  });

  test('the length check runs before the pattern, so an over-long value never reaches it', () => {
    const { allow, deny } = allowAndDeny(`{max_length: 20, pattern: '${EVIL}'}`);
    const a = allow.evaluate(tool('notes', { text: ISSUE_INPUT }));
    expect(a.outcome).toBe('deny');
    expect(a.reason).toContain('is longer than max_length 20');
    expect(deny.evaluate(tool('notes', { text: ISSUE_INPUT })).outcome).toBe('allow');
  });

  test('RE2 syntax is what patterns use: (?i), [[:alpha:]] and \\pL are accepted', () => {
    const { allow } = allowAndDeny(`{pattern: '(?i)x[[:alpha:]]\\pL+'}`);
    expect(allow.evaluate(tool('notes', { text: 'XyÉé' })).outcome).toBe('allow');
    expect(allow.evaluate(tool('notes', { text: 'x1é' })).outcome).toBe('deny');
  });
});

function issueOf(yaml: string): PolicyIssue {
  try {
    compilePolicy(yaml, { file: 'policy.yaml' });
  } catch (err) {
    if (err instanceof PolicyLoadError && err.issues[0]) return err.issues[0];
    throw err;
  }
  throw new Error('expected the policy to be refused');
}

describe('patterns RE2 cannot run in linear time are refused at load, with the reason', () => {
  test.each([
    ['a backreference', '(a+)\\1', /invalid escape sequence/],
    ['a lookahead', '(?=a)a+', /unsupported Perl syntax/],
    ['a negative lookahead', '(?!x).*', /unsupported Perl syntax/],
    ['a lookbehind', '(?<=a)b', /invalid named capture|unsupported/],
    ['a possessive quantifier', 'a++', /invalid nested repetition/],
    ['a repeat count over 1000', 'a{1001}', /invalid repeat count/],
  ])('%s: %s', (_name, pattern, reason) => {
    const yaml = `allowed_tools:\n  - tool: notes\n    input:\n      text: {pattern: '${pattern}'}\n`;
    const issue = issueOf(yaml);
    expect(issue).toMatchObject({ path: 'allowed_tools[0].input.text.pattern', line: 4 });
    expect(issue.message).toMatch(/not a valid RE2 regular expression/);
    expect(issue.message).toMatch(reason);
    expect(issue.message).toContain('docs/policy.md');
  });
});

describe('globs match in linear time', () => {
  const stars = `${'*a'.repeat(12)}*b`;
  const long = 'a'.repeat(20_000);

  test('a glob with many stars against a long value, in an input constraint', () => {
    const { allow, deny } = allowAndDeny(`{glob: '${stars}'}`);
    const a = timed(() => allow.evaluate(tool('notes', { text: long })));
    expect(a.value.outcome).toBe('deny');
    expect(a.ms).toBeLessThan(GENEROUS_MS);
    const d = timed(() => deny.evaluate(tool('notes', { text: long })));
    expect(d.value.outcome).toBe('allow');
    expect(d.ms).toBeLessThan(GENEROUS_MS);
    expect(allow.evaluate(tool('notes', { text: `${long}b` })).outcome).toBe('allow');
    expect(deny.evaluate(tool('notes', { text: `${long}B` })).outcome).toBe('deny');
  });

  test('a glob with many stars against a long entity id', () => {
    const { engine } = engineOf(
      `allowed_services:\n  - service: light.turn_on\n    target: {entity_id: ['light.${stars}']}\n`,
    );
    const r = timed(() => engine.evaluate(svc('light.turn_on', { entity_id: `light.${long}` })));
    expect(r.value.outcome).toBe('deny');
    expect(r.ms).toBeLessThan(GENEROUS_MS);
    const ok = engine.evaluate(svc('light.turn_on', { entity_id: `light.${long}b` }));
    expect(ok.outcome).toBe('allow');
  });
});

describe('numbers in deny rules are read in linear time', () => {
  test('a long digit string with a letter at the end, against min/max', () => {
    const { deny } = allowAndDeny('{max: 5}');
    const text = `${'1'.repeat(100_000)}x`;
    const d = timed(() => deny.evaluate(tool('notes', { text })));
    // Not a number as far as the deny can tell: a lenient deny matches it.
    expect(d.value.outcome).toBe('deny');
    expect(d.ms).toBeLessThan(GENEROUS_MS);
  });
});

describe('the policy text is read in linear time too', () => {
  test('a rate limit with a long run of spaces is refused at once', () => {
    const limit = `10/m${' '.repeat(200_000)}x`;
    const yaml = `allowed_tools:\n  - tool: notes\n    rate_limit: "${limit}"\n`;
    const r = timed(() => issueOf(yaml));
    expect(r.value.path).toBe('allowed_tools[0].rate_limit.per');
    expect(r.ms).toBeLessThan(GENEROUS_MS);
  });
});
