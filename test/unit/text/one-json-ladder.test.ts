import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT, sources } from '../../helpers/sources.js';

// Issue 30: one JSON ladder. Every JSON text from outside the process (HTTP bodies, bus
// messages, backends' answers, a model's arguments, files, a child's stdout) is read by
// src/text/json-text.ts (depth, parse, prototype keys). eslint's `no-restricted-syntax`
// refuses `JSON.parse` anywhere else (eslint.config.js, `JSON_PARSE`); the places below parse
// text they made themselves, each with an eslint-disable comment that says so. A new one
// fails here until it is listed, with its reason.

const LADDER = 'src/text/json-text.ts';

/** Files that parse their own JSON text, and why that text needs no ladder. */
const OWN_TEXT: Readonly<Record<string, string>> = {
  'src/brain/agent/placeholders.ts': 'a copy of a value the placeholder filler stringified',
  'src/brain/conversations/truncate.ts':
    'the conversation store reads back what encodeToolRecord wrote from a bounded record',
  'workers/web_search/tool.ts': "an error's details, stringified a line above to redact keys",
};

const JSON_PARSE = /\bJSON\s*\.\s*parse\b/;
const DISABLE = /\/\/ eslint-disable-next-line no-restricted-syntax -- \S.{8,}/;

/** `file:line` of each `JSON.parse` in src/ and workers/ outside the ladder, with the line before. */
function parses(): { at: string; file: string; before: string }[] {
  const out: { at: string; file: string; before: string }[] = [];
  for (const file of [...sources('src'), ...sources('workers')]) {
    if (file === LADDER) continue;
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const code = /^\s*(\*|\/\*|\/\/)/.test(line) ? '' : line.replace(/\/\/.*$/, '');
      if (JSON_PARSE.test(code)) {
        out.push({ at: `${file}:${i + 1}`, file, before: lines[i - 1] ?? '' });
      }
    });
  }
  return out;
}

test('JSON.parse is called by the ladder, and elsewhere only on text a module made itself', () => {
  expect(readFileSync(join(ROOT, LADDER), 'utf8')).toMatch(JSON_PARSE);
  const found = parses();
  const unlisted = found.filter((p) => OWN_TEXT[p.file] === undefined).map((p) => p.at);
  expect(unlisted).toEqual([]);
  const unexplained = found.filter((p) => !DISABLE.test(p.before)).map((p) => p.at);
  expect(unexplained).toEqual([]);
  // the list cannot rot: every file on it still parses its own text
  expect([...new Set(found.map((p) => p.file))].sort()).toEqual(Object.keys(OWN_TEXT).sort());
});

test('eslint refuses JSON.parse outside the ladder (the rule the comments above disable)', () => {
  const config = readFileSync(join(ROOT, 'eslint.config.js'), 'utf8');
  expect(config).toContain(
    "selector: \"MemberExpression[object.name='JSON'][property.name='parse']\"",
  );
  expect(config).toContain(`ignores: ['${LADDER}']`);
});
