import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { REPO_ROOT } from './audit-fixtures.js';

/**
 * A plain-JavaScript copy of src/audit (and src/log, which it imports), transpiled without
 * type checking into node_modules/.cache, so code that starts worker threads can be tested
 * for real from the TypeScript sources: a worker thread is plain Node and cannot load .ts.
 */
export interface TranspiledAudit extends Disposable {
  /** file: URL of the copy's src/audit/index.js. */
  readonly indexUrl: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

export function transpileAudit(): TranspiledAudit {
  const out = join(
    REPO_ROOT,
    'node_modules',
    '.cache',
    `caesar-audit-js-${process.pid}-${Date.now()}`,
  );
  for (const file of [
    ...sources(join(REPO_ROOT, 'src/audit')),
    ...sources(join(REPO_ROOT, 'src/log')),
  ]) {
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    }).outputText;
    const dest = join(out, relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, js);
  }
  return {
    indexUrl: pathToFileURL(join(out, 'src/audit/index.js')).href,
    [Symbol.dispose]: () => rmSync(out, { recursive: true, force: true }),
  };
}
