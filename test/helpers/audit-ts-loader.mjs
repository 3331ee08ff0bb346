// Module hooks that let a plain `node` child process import the TypeScript sources directly:
// `./x.js` resolves to `./x.ts` when only the .ts exists, and .ts files are transpiled on load
// (type-only, no checking). Used by the audit crash test and CLI tests, so they run from a
// fresh clone without a build and without depending on other modules compiling.
// Transpiled files are cached by content hash under the OS temp dir, so repeated child
// starts skip loading TypeScript entirely.
// Register with: node --import ./test/helpers/audit-ts-register.mjs <script>

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CACHE_DIR = join(tmpdir(), 'caesar-ts-loader-cache-v1');
let typescript;

export async function resolve(specifier, context, nextResolve) {
  const relative =
    context.parentURL?.endsWith('.ts') &&
    (specifier.startsWith('./') || specifier.startsWith('../'));
  if ((relative || specifier.startsWith('file:')) && specifier.endsWith('.js')) {
    const jsUrl = new URL(specifier, context.parentURL);
    const tsUrl = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (!existsSync(fileURLToPath(jsUrl)) && existsSync(fileURLToPath(tsUrl))) {
      return { url: tsUrl.href, shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

async function transpile(path, source) {
  typescript ??= (await import('typescript')).default;
  const ts = typescript;
  return ts.transpileModule(source, {
    fileName: path,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
  }).outputText;
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const key = createHash('sha256').update(path).update('\0').update(source).digest('hex');
  const cached = join(CACHE_DIR, `${key}.js`);
  try {
    return { format: 'module', source: await readFile(cached, 'utf8'), shortCircuit: true };
  } catch {
    // not cached yet
  }
  const output = await transpile(path, source);
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  await writeFile(tmp, output);
  await rename(tmp, cached);
  return { format: 'module', source: output, shortCircuit: true };
}
