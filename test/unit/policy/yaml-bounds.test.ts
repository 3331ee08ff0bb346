import { describe, expect, test } from 'vitest';
import { compilePolicy, PolicyLoadError } from '../../../src/policy/index.js';
import { MAX_NESTING_DEPTH } from '../../../src/text/index.js';
import { MAX_YAML_ALIASES } from '../../../src/text/bounds.js';
import { issuesOf } from './helpers.js';

/**
 * Issue 11, findings 7 and 10 (the policy's share): a 5,000-level policy died with "Maximum
 * call stack size exceeded"; 100 aliases were refused where the docs say "at most 100". The
 * shared bounds (src/text/bounds.ts) apply: nesting deeper than MAX_NESTING_DEPTH and more
 * than MAX_YAML_ALIASES alias uses are load errors with file:line:column.
 */

/** `allowed_tools` holding one rule whose input nests `levels` maps deep, block style. */
function blockDeep(levels: number): string {
  const lines = ['allowed_tools:', '  - tool: notes', '    input:'];
  for (let i = 0; i < levels; i++) lines.push(`${' '.repeat(6 + 2 * i)}k${i}:`);
  lines.push(`${' '.repeat(6 + 2 * levels)}equals: x`);
  return `${lines.join('\n')}\n`;
}

describe('nesting depth', () => {
  test.each([
    ['flow lists', `allowed_tools: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, 1],
    ['flow maps', `allowed_tools: [${'{a: '.repeat(5000)}x${'}'.repeat(5000)}]\n`, 1],
    ['block maps', blockDeep(5000), 3],
    [
      'block lists',
      `allowed_tools:\n${Array.from({ length: 5000 }, (_, i) => `${' '.repeat(2 * i)}- `).join('\n')}x\n`,
      1,
    ],
  ])(
    '5,000 levels of %s are a load error with file:line:column, not a stack overflow',
    (_name, yaml, line) => {
      const issues = issuesOf(yaml);
      expect(issues).toHaveLength(1);
      const issue = issues[0]!;
      expect(issue.message).toContain(`nests deeper than ${MAX_NESTING_DEPTH} levels`);
      expect(issue.line).toBeGreaterThanOrEqual(line);
      expect(issue.column).toBeGreaterThanOrEqual(1);
    },
  );

  test('the bound itself: a file at the limit loads past the reader, one level more does not', () => {
    // The document map is level 1, allowed_tools 2, the rule 3, input 4, then one map per
    // key: blockDeep(n) nests 4 + n levels, its deepest map on line 4 + n.
    const fits = blockDeep(MAX_NESTING_DEPTH - 4);
    const over = blockDeep(MAX_NESTING_DEPTH - 3);
    const depthIssue = (yaml: string) => {
      try {
        compilePolicy(yaml, { file: 'policy.yaml' });
        return undefined;
      } catch (err) {
        if (!(err instanceof PolicyLoadError)) throw err;
        return err.issues.find((i) => i.message.includes('nests deeper'));
      }
    };
    expect(depthIssue(fits)).toBeUndefined();
    expect(depthIssue(over)).toMatchObject({ line: MAX_NESTING_DEPTH + 1 });
  });
});

describe('YAML aliases', () => {
  /** A policy with `uses` alias uses of one anchored tool name. */
  function withAliases(uses: number): string {
    const items = ['&t calculator', ...Array.from({ length: uses }, () => '*t')];
    return `allowed_tools: [${items.join(', ')}]\n`;
  }

  test(`${MAX_YAML_ALIASES} alias uses load (the docs say "at most ${MAX_YAML_ALIASES}")`, () => {
    const policy = compilePolicy(withAliases(MAX_YAML_ALIASES), { file: 'policy.yaml' });
    expect(policy.rules).toHaveLength(MAX_YAML_ALIASES + 1);
  });

  test(`${MAX_YAML_ALIASES + 1} alias uses are refused, naming the one over the bound`, () => {
    const issues = issuesOf(withAliases(MAX_YAML_ALIASES + 1));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(
      new RegExp(
        `more than ${MAX_YAML_ALIASES} YAML aliases \\(\\*t is number ${MAX_YAML_ALIASES + 1}\\)`,
      ),
    );
    expect(issues[0]).toMatchObject({ line: 1 });
    expect(issues[0]?.column).toBeGreaterThan(1);
  });
});
