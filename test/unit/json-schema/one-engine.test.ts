import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT, sources } from '../../helpers/sources.js';

// Issue 30, ADR 0079: one engine checks a JSON Schema a tool announced, in the brain and in a
// module tool's worker: ajv with patterns on RE2, set up once in src/json-schema/validator.ts.
// No other module imports ajv or turns a JSON Schema into zod (`z.fromJSONSchema`, whose
// patterns run on JavaScript's backtracking engine and whose 2020-12 reading differs), so a
// second engine cannot grow back and disagree with the brain.

/** The engine's one home; every exception is listed here with why (none today). */
const HOME = new Set(['src/json-schema/validator.ts']);
const ENGINE_IMPORT = /(?:\bfrom\s+|\bimport\s*\(?\s*)['"](?:ajv|ajv-formats)(?:\/[^'"]*)?['"]/;
const SECOND_ENGINE = /\bfromJSONSchema\b/;

/** The files outside the engine's home that import it or build a second one. */
function offenders(files: readonly { file: string; text: string }[]): string[] {
  return files
    .filter(({ file }) => !HOME.has(file))
    .filter(({ text }) => ENGINE_IMPORT.test(text) || SECOND_ENGINE.test(text))
    .map(({ file }) => file);
}

test('only src/json-schema/validator.ts imports ajv; nothing turns a JSON Schema into zod', () => {
  const files = [...sources('src'), ...sources('workers')].map((file) => ({
    file,
    text: readFileSync(join(ROOT, file), 'utf8'),
  }));
  expect(files.length).toBeGreaterThan(100);
  expect(offenders(files)).toEqual([]);
  for (const f of HOME) expect(readFileSync(join(ROOT, f), 'utf8')).toMatch(ENGINE_IMPORT);
});

test('the guard names a planted import of ajv and a planted z.fromJSONSchema', () => {
  const planted = [
    { file: 'src/brain/gateway/x.ts', text: "import { Ajv2020 } from 'ajv/dist/2020.js';" },
    { file: 'src/legion/y.ts', text: 'const t = z.fromJSONSchema(schema);' },
    { file: 'workers/z/z.ts', text: "const f = await import('ajv-formats');" },
    { file: 'src/json-schema/validator.ts', text: "import Ajv from 'ajv';" },
  ];
  expect(offenders(planted)).toEqual([
    'src/brain/gateway/x.ts',
    'src/legion/y.ts',
    'workers/z/z.ts',
  ]);
});
