import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/brain/llm/prompt.js';
import { configNodes } from '../../../src/config/walk.js';
import { ROOT } from '../../helpers/doc-blocks.js';
import {
  envMentions,
  envNameChecker,
  envNameProblems,
  NOT_SETTINGS,
  type EnvNameChecker,
} from '../../helpers/doc-env-names.js';

// Issue 29, point 2: docs/llm.md once listed `__SYSTEM_<the whole system prompt>` where
// `__SYSTEM_PROMPT` belongs. Every env var name README.md and docs/ write (the ADRs too: they
// are read for the names) must name a setting of the config schema or a shipped tool, so a
// value spliced into a name, a typo or a renamed key fails here with file:line and the real
// name closest to it.

/** README.md and every Markdown file under docs/, ADRs included. */
function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.md')) out.push(path);
    }
  };
  walk('docs');
  return out.sort();
}

const read = (doc: string): string => readFileSync(join(ROOT, doc), 'utf8');

let checker: EnvNameChecker;
beforeAll(async () => {
  checker = await envNameChecker();
});

describe('env var names in the docs', () => {
  test('each names a setting of the config schema or a shipped tool', () => {
    const wrong = markdownFiles().flatMap((doc) =>
      envNameProblems(checker, read(doc)).map(
        (p) => `${doc}:${p.line}: \`${p.written}\` ${p.problem}`,
      ),
    );
    expect(wrong, 'fix the name in the doc (or the schema, if the doc is right)').toEqual([]);
  });

  test('the reader finds them: full names, prefixes and the shorthand of docs/llm.md', () => {
    const all = markdownFiles().flatMap((doc) => envMentions(read(doc)));
    expect(all.filter((m) => m.form === 'full').length).toBeGreaterThan(200);
    expect(all.some((m) => m.form === 'prefix' && m.written === 'CAESAR_TOOLS__')).toBe(true);
    const llm = envMentions(read('docs/llm.md')).filter((m) => m.form === 'short');
    expect(llm.map((m) => m.written)).toEqual(
      expect.arrayContaining(['__MODEL', '__SYSTEM_PROMPT', '__OPENAI__API_KEY']),
    );
    expect(llm.every((m) => m.name === 'CAESAR_LLM__PROVIDER')).toBe(true);
  });

  test("c9553f6^'s docs/llm.md (the system prompt spliced into __SYSTEM_PROMPT) fails, naming the line", () => {
    const text = read('docs/llm.md');
    const line = text.split('\n').findIndex((l) => l.includes('`__SYSTEM_PROMPT`')) + 1;
    expect(line).toBeGreaterThan(0);
    const spliced = text.replace('`__SYSTEM_PROMPT`', `\`__SYSTEM_${DEFAULT_SYSTEM_PROMPT}\``);
    expect(envNameProblems(checker, spliced)).toEqual([
      {
        line,
        written: '__SYSTEM_You…',
        problem: expect.stringMatching(
          /not a well-formed env var name \(closest real name: CAESAR_LLM__SYSTEM_PROMPT\)/,
        ) as unknown,
      },
    ]);
  });

  test.each([
    ['(`CAESAR_LLM__PROVIDER`, `__MAX_TOKEN`)', '__MAX_TOKEN', 'CAESAR_LLM__MAX_TOKENS'],
    ['set `CAESAR_LLM__MODELL`', 'CAESAR_LLM__MODELL', 'CAESAR_LLM__MODEL'],
    ['CAESAR_LLM__MODEL_gpt=1', 'CAESAR_LLM__MODEL_gpt', 'CAESAR_LLM__MODEL'],
    [
      'CAESAR_TOOLS__WEB_SEARCH__SEARX_URL=http://x',
      'CAESAR_TOOLS__WEB_SEARCH__SEARX_URL',
      'CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL',
    ],
    ['`CAESAR_HA__TOKN_FILE`', 'CAESAR_HA__TOKN_FILE', 'CAESAR_HA__TOKEN_FILE'],
    ['(`CAESAR_BUSS__*`)', 'CAESAR_BUSS__', 'CAESAR_BUS__'],
  ])('%s is refused with the closest real name', (text, written, hint) => {
    const [problem, ...more] = envNameProblems(checker, `intro\n\n${text}\n`);
    expect(more).toEqual([]);
    expect(problem).toMatchObject({ line: 3, written });
    expect(problem?.problem).toContain(`closest real name: ${hint}`);
  });

  test.each([
    '(`CAESAR_HA__URL`, `__TOKEN`, `__VERIFY_SSL`)',
    '`CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY_FILE`, `CAESAR_TOOLS__CALENDAR__*`',
    '`CAESAR_TOOLS__WEATHER__API_URL` (an operator module: any key)',
    '`CAESAR_TOOLS__<TOOL>__<KEY>` and `__proto__`',
    '`CAESAR_LLM__OPENAI__MODEL`\n\nthen `__proto__` in another paragraph',
  ])('%s is accepted', (text) => {
    expect(envNameProblems(checker, text)).toEqual([]);
  });

  test('each name that is not a setting is still named where it comes from', () => {
    const stale = Object.entries(NOT_SETTINGS)
      .filter(([name, home]) => !read(home).includes(name))
      .map(([name, home]) => `${name}: ${home}`);
    expect(stale).toEqual([]);
  });
});

describe('docs/configuration.md (generated)', () => {
  test('has one Env line per schema key and section, each its env var', () => {
    const lines = read('docs/configuration.md')
      .split('\n')
      .filter((l) => l.startsWith('- Env: '));
    const written = lines.map((l) => /^- Env: `([^`]*)`/.exec(l)?.[1] ?? l);
    const expected = configNodes()
      .filter((n) => n.type !== 'section')
      .map((n) => (n.type === 'map' ? `${n.env}__<TOOL>__<KEY>` : n.env));
    expect(written).toEqual(expected);
  });
});
