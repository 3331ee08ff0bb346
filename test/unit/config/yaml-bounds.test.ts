import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readTokensFile, TokensFileError } from '../../../src/brain/api/tokens-file.js';
import { yamlTextLayer } from '../../../src/config/yaml-layer.js';
import { MAX_NESTING_DEPTH, readYaml } from '../../../src/text/index.js';
import { MAX_YAML_ALIASES } from '../../../src/text/bounds.js';

// Issue 11, findings 7 and 10, for the YAML files the brain reads besides the policy:
// caesar.yaml, the intents file and the API tokens file. A file nested thousands of levels
// is a positioned error (not a stack overflow), and "at most 100 aliases" means 100 pass.

/**
 * A document whose top-level map is level 1 and whose deepest collection is level `depth`,
 * in four styles, with the line and column where level `level` starts.
 */
const STYLES = {
  'flow lists': {
    text: (depth: number) => `a: ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}\n`,
    at: (level: number) => [1, 4 + (level - 2)],
  },
  'flow maps': {
    text: (depth: number) => `a: ${'{a: '.repeat(depth - 1)}1${'}'.repeat(depth - 1)}\n`,
    at: (level: number) => [1, 4 + 4 * (level - 2)],
  },
  'indented maps': {
    text: (depth: number) =>
      Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}a:\n`).join('') +
      `${' '.repeat(depth)}1\n`,
    at: (level: number) => [level, level],
  },
  'indented lists': {
    text: (depth: number) => `a:\n  ${'- '.repeat(depth - 1)}1\n`,
    at: (level: number) => [2, 3 + 2 * (level - 2)],
  },
} as const;
const STYLE_NAMES = Object.keys(STYLES) as (keyof typeof STYLES)[];

/** A document with one anchor and `uses` aliases of it. */
const aliases = (uses: number) =>
  `x: &x 1\nl:\n${Array.from({ length: uses }, () => '  - *x\n').join('')}`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-yaml-bounds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The tokens reader's first issue line for `text`, written as a 0600 file. */
async function tokensIssue(text: string): Promise<string> {
  const file = join(dir, 'api-tokens.yaml');
  await writeFile(file, text, { mode: 0o600 });
  await chmod(file, 0o600);
  const err = await readTokensFile(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TokensFileError);
  return (err as TokensFileError).issues[0]!.replace(`${file}:`, 'api-tokens.yaml:');
}

/** Whether `line:col` lies at or after `at` (the start of the first level too deep). */
const atOrAfter = (line: number, col: number, at: readonly number[]) =>
  line > at[0]! || (line === at[0] && col >= at[1]!);

describe.each(STYLE_NAMES)('a YAML file nested deep in %s', (style) => {
  const { text, at } = STYLES[style];
  const [line, col] = at(MAX_NESTING_DEPTH + 1);
  const message = `nests deeper than ${MAX_NESTING_DEPTH} levels of maps and lists`;
  const over = MAX_NESTING_DEPTH + 1;

  // One level too deep is found by the reader's walk, at the first level too deep; a thousand
  // of levels stop the parser first (before its stack could overflow), somewhere below that.
  test('caesar.yaml one level too deep names file:line:column of the first level too deep', () => {
    expect(yamlTextLayer('caesar.yaml', text(over)).issues).toEqual([
      { source: `caesar.yaml:${line}:${col}`, path: '', message: `YAML: ${message}` },
    ]);
  });

  test('caesar.yaml 1000 levels deep names a file:line:column inside the part too deep', () => {
    const [issue, ...rest] = yamlTextLayer('caesar.yaml', text(1000)).issues;
    expect(rest).toEqual([]);
    expect(issue?.message).toBe(`YAML: ${message}`);
    const [, l, c] = /^caesar\.yaml:(\d+):(\d+)$/.exec(issue?.source ?? '') ?? [];
    expect(atOrAfter(Number(l), Number(c), at(over))).toBe(true);
  });

  test('caesar.yaml exactly at the bound has no depth issue', () => {
    const layer = yamlTextLayer('caesar.yaml', text(MAX_NESTING_DEPTH));
    expect(layer.issues.map((i) => i.message).join('\n')).not.toMatch(/nests deeper|stack/);
  });

  test.each([over, 1000])('the reader (intents, policy) at %i levels deep says so', (depth) => {
    const source = readYaml(text(depth));
    expect(source.issues).toHaveLength(1);
    const [issue] = source.issues;
    expect(issue).toMatchObject({ path: '', message: `YAML: ${message}` });
    if (depth === over) expect(issue).toMatchObject({ line, column: col });
    expect(atOrAfter(issue!.line, issue!.column, at(over))).toBe(true);
    expect(source.value).toBeUndefined();
  });

  test('the reader exactly at the bound parses', () => {
    const source = readYaml(text(MAX_NESTING_DEPTH));
    expect(source.issues).toEqual([]);
  });

  // 1,000 levels: 5,000 indented ones are over the readers' 1 MiB size bound.
  test('an API tokens file one level too deep names file:line:column', async () => {
    expect(await tokensIssue(text(over))).toBe(`api-tokens.yaml:${line}:${col}: YAML: ${message}`);
  });

  test('an API tokens file 1000 levels deep is refused with the same message', async () => {
    expect(await tokensIssue(text(1000))).toMatch(
      new RegExp(`^api-tokens\\.yaml:\\d+:\\d+: YAML: ${message}$`),
    );
  });
});

describe('YAML aliases', () => {
  test(`caesar.yaml and the intents file accept ${MAX_YAML_ALIASES} alias uses`, () => {
    const text = aliases(MAX_YAML_ALIASES);
    expect(yamlTextLayer('caesar.yaml', text).issues).toEqual([]);
    expect(readYaml(text).issues).toEqual([]);
  });

  test(`alias use number ${MAX_YAML_ALIASES + 1} is refused where it stands`, () => {
    const text = aliases(MAX_YAML_ALIASES + 1);
    const message = `YAML: more than ${MAX_YAML_ALIASES} YAML aliases (*x is number ${MAX_YAML_ALIASES + 1})`;
    // Line 1 holds the anchor, line 2 `l:`, then one alias a line.
    const line = 2 + MAX_YAML_ALIASES + 1;
    expect(yamlTextLayer('caesar.yaml', text).issues).toEqual([
      { source: `caesar.yaml:${line}:5`, path: '', message },
    ]);
    expect(readYaml(text).issues).toEqual([{ path: '', line, column: 5, message }]);
  });

  test('aliases that nest a value past the depth bound are refused', () => {
    // 40 levels in the anchor, used 40 levels deep: 80 levels once expanded.
    const inner = `${'['.repeat(40)}${']'.repeat(40)}`;
    const text = `x: &x ${inner}\ny: ${'['.repeat(40)}*x${']'.repeat(40)}\n`;
    const [issue] = yamlTextLayer('caesar.yaml', text).issues;
    expect(issue?.message).toMatch(/^YAML: nests deeper than 64 levels of maps and lists at y/);
  });

  test('the API tokens file allows no aliases and says where one is', async () => {
    const text = 'tokens:\n  - &t {name: a, token: abcdefghijklmnopqrstuvwxyz0123}\n  - *t\n';
    expect(await tokensIssue(text)).toBe(
      'api-tokens.yaml:3:5: YAML: YAML aliases (*t) are not allowed in this file',
    );
  });
});
