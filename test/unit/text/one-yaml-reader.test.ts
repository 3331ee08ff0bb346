import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT, sources } from '../../helpers/sources.js';

// Issue 12: one YAML reader. Every YAML text in src/ and workers/ is read by src/text/yaml.ts
// (bounds, positions, one issue shape); no other module imports a YAML library, so no
// second reader (with its own alias limit or error shape) can grow back.

const READER = new Set(['src/text/yaml.ts', 'src/text/yaml-walk.ts']);
const YAML_IMPORT = /(?:\bfrom\s+|\bimport\s*\(?\s*)['"](?:js-yaml|yaml)(?:\/[^'"]*)?['"]/;

test('only src/text/yaml.ts (and its walk) imports a YAML library', () => {
  const files = [...sources('src'), ...sources('workers')];
  expect(files.length).toBeGreaterThan(100);
  const offenders = files.filter(
    (f) => !READER.has(f) && YAML_IMPORT.test(readFileSync(join(ROOT, f), 'utf8')),
  );
  expect(offenders).toEqual([]);
  for (const f of READER) expect(readFileSync(join(ROOT, f), 'utf8')).toMatch(YAML_IMPORT);
});
