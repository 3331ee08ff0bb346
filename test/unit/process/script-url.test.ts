import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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

  describe("a thread's bundle (ADR 0104)", () => {
    const script = 'dist/workers/calculator/eval-thread.js';
    const bundle = 'dist/workers/calculator/eval-thread.bundle.js';
    const record = 'dist/.tsbuildinfo';
    /** Writes `files` with the given mtimes (seconds); removes the bundle and the record first. */
    function layout(files: Record<string, number>): void {
      rmSync(join(project, bundle), { force: true });
      rmSync(join(project, record), { force: true });
      for (const [file, at] of Object.entries(files)) {
        writeFileSync(join(project, file), '');
        utimesSync(join(project, file), at, at);
      }
    }
    const fromDist = () =>
      compiledScriptUrl(url('dist/workers/calculator/evaluator.js'), './eval-thread.js').href;
    const fromSources = () =>
      compiledScriptUrl(url('workers/calculator/evaluator.ts'), './eval-thread.js').href;

    test('one made after the last compile is the script, from dist/ and from sources', () => {
      layout({ [record]: 1000, [bundle]: 2000 });
      expect(fromDist()).toBe(url(bundle));
      expect(fromSources()).toBe(url(bundle));
    });

    test('one older than the last compile is stale: the compiled script runs', () => {
      layout({ [bundle]: 1000, [record]: 2000 });
      expect(fromDist()).toBe(url(script));
      expect(fromSources()).toBe(url(script));
    });

    test('without one, or without a package.json above, the compiled script runs', () => {
      layout({ [record]: 1000 });
      expect(fromDist()).toBe(url(script));
      const outside = mkdtempSync(join(tmpdir(), 'caesar-no-project-'));
      try {
        writeFileSync(join(outside, 'x-thread.js'), '');
        writeFileSync(join(outside, 'x-thread.bundle.js'), '');
        const module = pathToFileURL(join(outside, 'x.js')).href;
        expect(compiledScriptUrl(module, './x-thread.js').href).toBe(
          pathToFileURL(join(outside, 'x-thread.js')).href,
        );
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    test('a missing script is reported even when a bundle of that name stands beside it', () => {
      layout({ [record]: 1000, 'dist/workers/calculator/gone-thread.bundle.js': 2000 });
      expect(() =>
        compiledScriptUrl(url('dist/workers/calculator/evaluator.js'), './gone-thread.js'),
      ).toThrow(/gone-thread\.js is missing/);
    });
  });
});
