import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadIntents, parseIntents } from '../../../../src/brain/intents/index.js';
import {
  formatIntentsIssue,
  IntentsError,
  type IntentsIssue,
} from '../../../../src/brain/intents/errors.js';
import { issuesOf, ruleFile } from './helpers.js';

type Expected = Partial<Omit<IntentsIssue, 'message'>> & { message: string | RegExp };

/** A rule with one sentence and one text slot, to vary one line at a time. */
const rule = (lines: Record<string, string>) =>
  ruleFile(
    Object.entries({
      name: 'search',
      tool: 'web_search',
      sentences: '["search for {query}"]',
      slots: '{ query: { type: text } }',
      input: '{ query: "{query}" }',
      reply: '"found {result.count}"',
      ...lines,
    })
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  );

describe('a bad intents file is refused with file:line:column and the key path', () => {
  test.each<[string, string, Expected]>([
    ['a YAML syntax error', 'version: 1\nintents: [\n', { line: 3, message: /^YAML: / }],
    [
      'a duplicate key',
      'version: 1\nversion: 1\nintents: []\n',
      { line: 2, message: /duplicated mapping key/ },
    ],
    [
      'version 2',
      'version: 2\nintents: []\n',
      { path: 'version', line: 1, column: 10, message: /unsupported intents file version/ },
    ],
    [
      'an unknown top-level key',
      'version: 1\nintents: []\nrules: []\n',
      { path: 'rules', line: 3, column: 1, message: "unknown key 'rules'" },
    ],
    [
      'a misspelt rule key',
      rule({ sentences: '', sentense: '["search for {query}"]' }),
      {
        path: 'intents[0].sentense',
        line: 8,
        column: 5,
        message: "unknown key 'sentense' (did you mean 'sentences'?)",
      },
    ],
    [
      'a missing reply',
      rule({ reply: '' }),
      { path: 'intents[0].reply', line: 3, column: 5, message: 'missing (expected string)' },
    ],
    [
      'a bad tool name',
      rule({ tool: 'Web-Search' }),
      { path: 'intents[0].tool', line: 4, column: 11, message: /expected a tool name/ },
    ],
    [
      'an unknown slot type',
      rule({ slots: '{ query: { type: txt } }' }),
      { path: 'intents[0].slots.query.type', line: 6, message: /expected type: text, expression/ },
    ],
    [
      'an unknown slot in a sentence',
      rule({ sentences: '["search for {qury}", "search {query}"]' }),
      {
        path: 'intents[0].sentences[0]',
        line: 5,
        column: 17,
        message: 'unknown slot {qury} (defined: {query})',
      },
    ],
    [
      'a slot no sentence uses',
      rule({ slots: '{ query: { type: text }, site: { type: text } }' }),
      {
        path: 'intents[0].slots.site',
        line: 6,
        column: 37,
        message: 'slot {site} is not used by any sentence',
      },
    ],
    [
      'two free-text slots side by side',
      rule({
        sentences: '["search for {query} {site}"]',
        slots: '{ query: { type: text }, site: { type: text } }',
      }),
      {
        path: 'intents[0].sentences[0]',
        message: 'slots {query} and {site} are adjacent: put a required word between them',
      },
    ],
    [
      'free-text slots separated only by an optional word',
      rule({
        sentences: '["search for {query} [on] {site}"]',
        slots: '{ query: { type: text }, site: { type: text } }',
      }),
      { path: 'intents[0].sentences[0]', message: /\{query\} and \{site\} are adjacent/ },
    ],
    [
      'a sentence with no literal word',
      rule({ sentences: '["{query}"]' }),
      { path: 'intents[0].sentences[0]', message: /no required literal word/ },
    ],
    [
      'a sentence whose only literal is optional',
      rule({ sentences: '["[search] {query}"]' }),
      { path: 'intents[0].sentences[0]', message: /no required literal word/ },
    ],
    [
      'a group glued to a word',
      rule({ sentences: '["search for {query} light(s)"]' }),
      { path: 'intents[0].sentences[0]', message: /'\(' must follow a space.*at character 25/ },
    ],
    [
      'an unclosed group',
      rule({ sentences: '["search (for {query}"]' }),
      { path: 'intents[0].sentences[0]', message: /missing '\)'/ },
    ],
    [
      'an empty alternative',
      rule({ sentences: '["search (for|) {query}"]' }),
      { path: 'intents[0].sentences[0]', message: /empty alternative: write \[a\]/ },
    ],
    [
      'groups nested too deep',
      rule({ sentences: '["search [a [b [c [d [e]]]]] {query}"]' }),
      { path: 'intents[0].sentences[0]', message: /groups nest deeper than 4/ },
    ],
    [
      'a slot used twice in one reading',
      rule({ sentences: '["search {query} for {query}"]' }),
      { path: 'intents[0].sentences[0]', message: 'slot {query} appears twice in one reading' },
    ],
    [
      'a sentence that can leave out a slot with no default',
      rule({ sentences: '["search [for {query}]"]' }),
      {
        path: 'intents[0].sentences[0]',
        message: 'sentence can match without slot {query}, which has no default',
      },
    ],
    [
      'a sentence with too many readings',
      rule({
        sentences:
          '["search (a {query}|b {query}) (c|d {query}) (e|f {query}) (g|h {query}) (i|j {query}) (k|l {query}) (m|n {query})"]',
      }),
      { path: 'intents[0].sentences[0]', message: /more than 64 readings/ },
    ],
    [
      'a sentence longer than 500 characters',
      rule({ sentences: `["search ${'a '.repeat(250)}{query}"]` }),
      { path: 'intents[0].sentences[0]', message: /longer than 500 characters/ },
    ],
    [
      'an enum default that is not a value',
      rule({
        sentences: '["search {query} [{mode}]"]',
        slots:
          '{ query: { type: text }, mode: { type: enum, values: { fast: f }, default: slow } }',
      }),
      { path: 'intents[0].slots.mode.default', message: "default 'slow' is not one of the values" },
    ],
    [
      'a slot named like a reply value',
      rule({
        sentences: '["search for {result}"]',
        slots: '{ result: { type: text } }',
        input: '{}',
      }),
      { path: 'intents[0].slots.result', message: /slot name \{result\} is reserved/ },
    ],
    [
      'number bounds the wrong way round',
      rule({
        sentences: '["search {query} top {n}"]',
        slots: '{ query: { type: text }, n: { type: number, min: 10, max: 1 } }',
      }),
      { path: 'intents[0].slots.n.min', message: 'min is above max' },
    ],
    [
      'an unknown placeholder in the input',
      rule({ input: '{ query: "{qury}" }' }),
      {
        path: 'intents[0].input.query',
        line: 7,
        column: 21,
        message: 'unknown placeholder {qury} (known: {query})',
      },
    ],
    [
      'a result placeholder in the input',
      rule({ input: '{ query: "{result.x}" }' }),
      { path: 'intents[0].input.query', message: /unknown placeholder \{result\.x\}/ },
    ],
    [
      'a property a slot type does not have',
      rule({ input: '{ query: "{query.start}" }' }),
      {
        path: 'intents[0].input.query',
        message: 'unknown placeholder {query.start}: a text slot offers {query} and {query.word}',
      },
    ],
    [
      'an unknown filter',
      rule({ input: '{ query: "{query|upper}" }' }),
      { path: 'intents[0].input.query', message: /unknown filter 'upper' in \{query\|upper\}/ },
    ],
    [
      'an unmatched brace in a reply',
      rule({ reply: '"found {result.count"' }),
      { path: 'intents[0].reply', line: 8, message: /unmatched '\{' at character 7/ },
    ],
    [
      'an unknown reply placeholder',
      rule({ replies: '{ denied: "no: {why}" }' }),
      { path: 'intents[0].replies.denied', message: /unknown placeholder \{why\}/ },
    ],
    [
      'a reply for an outcome that does not exist',
      rule({ replies: '{ timeout: "slow" }' }),
      { path: 'intents[0].replies.timeout', message: "unknown key 'timeout'" },
    ],
    [
      'an input nested too deep',
      rule({ input: '{ a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } }' }),
      { path: 'intents[0].input.a.b.c.d.e.f.g.h.i', message: 'input nests deeper than 8' },
    ],
    [
      'an example its rule does not match',
      rule({ example: 'find cats' }),
      {
        path: 'intents[0].example',
        line: 9,
        column: 14,
        message: "example 'find cats' is not matched by any sentence of this rule",
      },
    ],
    [
      'an example an earlier rule takes',
      `${rule({})}${rule({
        name: 'narrow',
        example: 'search for x',
        sentences: '["search for x"]',
        slots: '{}',
        input: '{}',
      })
        .split('\n')
        .slice(2)
        .join('\n')}`,
      {
        path: 'intents[1].example',
        message: "example 'search for x' is matched by the earlier rule 'search' instead",
      },
    ],
    [
      'two rules with one name',
      `${rule({})}${rule({}).split('\n').slice(2).join('\n')}`,
      {
        path: 'intents[1].name',
        line: 9,
        message: "intent name 'search' is already used by intents[0]",
      },
    ],
  ])('%s', (_what, yaml, expected) => {
    const issues = issuesOf(yaml);
    const { message, ...where } = expected;
    expect(issues).toContainEqual(
      expect.objectContaining({
        ...where,
        message: typeof message === 'string' ? message : expect.stringMatching(message),
      }),
    );
  });

  test('the error message lists every problem as file:line:column: path: message', () => {
    const yaml = rule({ sentences: '["search for {nme}"]', input: '{ query: "{nme}" }' });
    let caught: unknown;
    try {
      parseIntents(yaml, 'config/intents.yaml');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IntentsError);
    const err = caught as IntentsError;
    expect(err.code).toBe('intents_invalid');
    expect(err.file).toBe('config/intents.yaml');
    expect(err.message.split('\n')).toEqual([
      'config/intents.yaml: invalid intents file (3 problems)',
      '  config/intents.yaml:5:17: intents[0].sentences[0]: unknown slot {nme} (defined: {query})',
      '  config/intents.yaml:6:14: intents[0].slots.query: slot {query} is not used by any sentence',
      '  config/intents.yaml:7:21: intents[0].input.query: unknown placeholder {nme} (known: {query})',
    ]);
    expect(formatIntentsIssue('f', err.issues[0]!)).toBe(
      'f:5:17: intents[0].sentences[0]: unknown slot {nme} (defined: {query})',
    );
  });

  test('an empty rule list loads and matches nothing', () => {
    const set = parseIntents('version: 1\nintents: []\n', 'x.yaml');
    expect(set.match('what is 1 + 1', { now: new Date(0), timeZone: 'UTC' })).toBeUndefined();
    expect(set.describe()).toEqual([]);
  });
});

describe('loadIntents', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-intents-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a missing file is intents_unreadable and retryable', async () => {
    const file = join(dir, 'missing.yaml');
    await expect(loadIntents(file)).rejects.toMatchObject({
      code: 'intents_unreadable',
      retryable: true,
      file,
      message: expect.stringContaining(`cannot read intents file ${file}`) as string,
    });
  });

  test('a file that is not UTF-8 is intents_unreadable', async () => {
    const file = join(dir, 'latin1.yaml');
    await writeFile(file, Buffer.from([0x76, 0x3a, 0x20, 0xe9, 0x0a]));
    await expect(loadIntents(file)).rejects.toMatchObject({ code: 'intents_unreadable' });
  });

  test('errors in a file name the real path', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'version: 1\nintents:\n  - name: x\n');
    await expect(loadIntents(file)).rejects.toThrow(`${file}:3:5: intents[0]`);
  });

  test('a file larger than the limit is refused before it is read', async () => {
    const file = join(dir, 'big.yaml');
    await writeFile(file, `# ${'x'.repeat(4_000_001)}\n`);
    await expect(loadIntents(file)).rejects.toMatchObject({
      code: 'intents_invalid',
      message: expect.stringContaining('over the limit of 1048576 bytes') as string,
    });
  });
});
