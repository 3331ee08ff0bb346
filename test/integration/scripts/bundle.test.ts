import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { compiledScriptUrl } from '../../../src/process/index.js';
import { productSources, ROOT, sources } from '../../helpers/sources.js';

// The build's thread bundles (scripts/bundle.mjs, ADR 0104), as `npm test` built them (its
// pretest runs scripts/setup.mjs): every thread the product starts runs from one file, and
// that file loads no package module by module. A bundle that silently stopped being made,
// or went stale, would put ~2 s of CPU back on every calculator thread start.

/** The product's thread scripts, from their sources: `src/audit/writer-thread.ts`, ... */
const THREADS = [...sources('src'), ...sources('workers')].filter((f) => f.endsWith('-thread.ts'));
/** The one package a bundle may import: a native addon, left outside (scripts/bundle.mjs). */
const EXTERNAL = new Set(['better-sqlite3']);

/** The specifiers a module imports, statically or with import() of a string. */
function importsOf(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('the thread bundles of the build', () => {
  test('the product has thread scripts to bundle', () => {
    expect(THREADS).toContain('workers/calculator/eval-thread.ts');
    expect(THREADS).toContain('src/audit/writer-thread.ts');
  });

  test.each(THREADS)('%s is a thread script: a module starts it by that name', (source) => {
    // the build bundles every `*-thread.ts` by its name, so only a thread's own script may
    // be named so (a main-side handle is `*-thread-handle.ts`)
    const name = source.split('/').pop()!.replace(/\.ts$/, '.js');
    const start = new RegExp(String.raw`compiledScriptUrl\(\s*import\.meta\.url,\s*'\./${name}'`);
    const starters = productSources().filter(({ text }) => start.test(text));
    expect(starters.map((s) => s.file)).not.toEqual([]);
  });

  test.each(THREADS)('%s starts from its bundle', (source) => {
    const script = source.replace(/\.ts$/, '.js');
    const name = script.split('/').pop()!;
    const caller = pathToFileURL(join(ROOT, source)).href;
    expect(compiledScriptUrl(caller, `./${name}`).href).toBe(
      pathToFileURL(join(ROOT, 'dist', script.replace(/\.js$/, '.bundle.js'))).href,
    );
  });

  test.each(THREADS)(
    '%s: its bundle imports node: built-ins and no module of its own',
    (source) => {
      const bundle = join(ROOT, 'dist', source.replace(/\.ts$/, '.bundle.js'));
      const outside = importsOf(bundle).filter((s) => !s.startsWith('node:') && !EXTERNAL.has(s));
      expect(outside).toEqual([]);
    },
  );

  test('the calculator thread holds only the mathjs it uses, not the whole library', () => {
    // mathjs's ESM build is 1,262 modules, 6.5 MB; the factories the thread uses are a few
    // dozen, well under 1 MB minified
    const bundle = join(ROOT, 'dist/workers/calculator/eval-thread.bundle.js');
    expect(readFileSync(bundle).length).toBeLessThan(1_000_000);
  });
});
