import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { compiledScriptUrl } from '../../../src/process/index.js';

/** A throwaway project: package.json, a source tree and its compiled twin under dist/. */
const project = mkdtempSync(join(tmpdir(), 'caesar-script-url-'));
for (const file of [
  'package.json',
  'workers/calculator/evaluator.ts',
  'dist/workers/calculator/evaluator.js',
  'dist/workers/calculator/eval-thread.js',
  'dist/test/fixtures/child.js',
]) {
  mkdirSync(dirname(join(project, file)), { recursive: true });
  writeFileSync(join(project, file), '');
}
afterAll(() => rmSync(project, { recursive: true, force: true }));

const url = (path: string) => pathToFileURL(join(project, path)).href;

describe('compiledScriptUrl', () => {
  test('from compiled dist/ it is the script next to the module', () => {
    const got = compiledScriptUrl(url('dist/workers/calculator/evaluator.js'), './eval-thread.js');
    expect(got.href).toBe(url('dist/workers/calculator/eval-thread.js'));
  });

  test('from TypeScript sources it is the compiled twin under dist/', () => {
    const got = compiledScriptUrl(url('workers/calculator/evaluator.ts'), './eval-thread.js');
    expect(got.href).toBe(url('dist/workers/calculator/eval-thread.js'));
  });

  test('a relative path may leave the module directory, inside dist/', () => {
    const got = compiledScriptUrl(
      url('test/integration/audit/crash.test.ts'),
      '../../fixtures/child.js',
    );
    expect(got.href).toBe(url('dist/test/fixtures/child.js'));
  });

  test.each([
    ['sources', 'workers/calculator/evaluator.ts', 'dist/workers/calculator/nope.js'],
    ['dist/', 'dist/workers/calculator/evaluator.js', 'dist/workers/calculator/nope.js'],
  ])('a missing script (from %s) names the file and the build command', (_from, module, file) => {
    expect(() => compiledScriptUrl(url(module), './nope.js')).toThrow(
      `${join(project, file)} is missing: run \`npm run build\``,
    );
  });

  test('a source file outside any project is reported', () => {
    const outside = mkdtempSync(join(tmpdir(), 'caesar-no-project-'));
    try {
      const module = pathToFileURL(join(outside, 'x.ts')).href;
      expect(() => compiledScriptUrl(module, './x.js')).toThrow(/no package\.json above/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
