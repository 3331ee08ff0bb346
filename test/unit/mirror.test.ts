import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../helpers/sources.js';

// Issue 30, CONTRIBUTING.md "Tests mirror the code": test/unit/<path> and
// test/integration/<path> test src/<path> or workers/<path>; a top folder of the repo (docs,
// scripts, web, workers) is its own counterpart. A folder that holds no test file (a test's
// data, such as `fixtures/`) needs none.

function folders(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isDirectory())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

const holdsTests = (dir: string): boolean =>
  readdirSync(join(ROOT, dir)).some((f) => f.endsWith('.test.ts'));

export function counterpart(path: string): string | undefined {
  return [`src/${path}`, `workers/${path}`, path].find((c) => existsSync(join(ROOT, c)));
}

test('every test folder mirrors a folder of src/, workers/ or the repo', () => {
  const orphans = ['test/unit', 'test/integration'].flatMap((top) =>
    folders(top)
      .filter(holdsTests)
      .map((dir) => relative(join(ROOT, top), join(ROOT, dir)))
      .filter((path) => counterpart(path) === undefined)
      .map(
        (path) => `${top}/${path}: no src/${path} nor workers/${path}; move it where its code is`,
      ),
  );
  expect(orphans).toEqual([]);
});

test('a folder named for no code has no counterpart', () => {
  expect(counterpart('gateway')).toBeUndefined();
  expect(counterpart('brain/gateway')).toBe('src/brain/gateway');
  expect(counterpart('calculator')).toBe('workers/calculator');
});
