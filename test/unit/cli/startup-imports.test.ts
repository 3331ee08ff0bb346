import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../../helpers/sources.js';

// ADR 0047: `caesar --help`, `caesar <cmd> --help` and usage errors load no heavy module, and
// the client commands (`chat`, `invoke`, `confirm`, `reject`) load no server code. Both
// follow from what the entry files import statically: `import` and `export ... from`, but
// not `import type` / `export type` (erased) and not `import()` (a runner, loaded when a
// command runs). With `verbatimModuleSyntax`, `import { type A } from` stays in the output
// as `import {} from`, so it counts. Parsed file by file, no type checker, no process.

/** Packages too heavy to load before a command runs (in-process import costs: ADR 0047). */
const HEAVY_PACKAGES = [
  'fastify',
  'better-sqlite3',
  'prom-client',
  'ajv',
  'mathjs',
  'zod',
  'pino',
  '@nats-io/*',
  'undici',
  'openai',
  '@anthropic-ai/sdk',
  'tsdav',
  'ical.js',
  'js-yaml',
];

/** What the servers load: a client of the HTTP API needs none of it. */
const SERVER_PACKAGES = HEAVY_PACKAGES.filter((p) => p !== 'zod' && p !== 'js-yaml');

/** Server folders, with the one file of each that a light path may take (`except`). */
const SERVER_FOLDERS: readonly { folder: string; except?: readonly string[] }[] = [
  { folder: 'src/brain/' },
  { folder: 'src/audit/', except: ['src/audit/event-names.ts'] },
  { folder: 'src/policy/' },
  { folder: 'src/legion/' },
  { folder: 'src/bus/' },
  { folder: 'src/log/' },
  { folder: 'workers/', except: ['workers/index.ts'] },
];

/** A node of the graph: a root-relative source file, or `pkg:<name>`. */
type Node = string;

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** What `file` imports statically: source files (root-relative `.ts`) and `pkg:` names. */
function staticImports(file: string): Node[] {
  const sf = ts.createSourceFile(
    file,
    readFileSync(posix.join(ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const out: Node[] = [];
  for (const st of sf.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(st) && !st.importClause?.isTypeOnly) spec = st.moduleSpecifier;
    if (ts.isExportDeclaration(st) && !st.isTypeOnly) spec = st.moduleSpecifier;
    if (spec === undefined || !ts.isStringLiteral(spec)) continue;
    const text = spec.text;
    if (text.startsWith('node:')) continue;
    if (!text.startsWith('.')) {
      out.push(`pkg:${packageName(text)}`);
      continue;
    }
    const target = posix.join(posix.dirname(file), text).replace(/\.js$/, '.ts');
    if (!existsSync(posix.join(ROOT, target))) throw new Error(`${file}: no source for ${text}`);
    out.push(target);
  }
  return out;
}

/** Every node reachable from `entry`, each with the chain of imports that reaches it. */
function reach(entry: string): Map<Node, readonly Node[]> {
  const chains = new Map<Node, readonly Node[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const next of staticImports(file)) {
      if (chains.has(next)) continue;
      chains.set(next, [...chains.get(file)!, next]);
      if (!next.startsWith('pkg:')) queue.push(next);
    }
  }
  return chains;
}

function isPackage(node: Node, names: readonly string[]): boolean {
  if (!node.startsWith('pkg:')) return false;
  const name = node.slice(4);
  return names.some((p) => (p.endsWith('/*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

function inFolder(node: Node, folders: typeof SERVER_FOLDERS): boolean {
  return folders.some((f) => node.startsWith(f.folder) && !f.except?.includes(node));
}

/** Each forbidden node reached, as the chain of imports from the entry (`a -> b -> pkg:zod`). */
function forbidden(
  entry: string,
  packages: readonly string[],
  folders: typeof SERVER_FOLDERS,
): string[] {
  return [...reach(entry)]
    .filter(([node]) => isPackage(node, packages) || inFolder(node, folders))
    .map(([, chain]) => chain.join(' -> '));
}

describe('caesar --help and usage errors', () => {
  test('src/cli/main.ts reaches no heavy package and no server folder', () => {
    expect(forbidden('src/cli/main.ts', HEAVY_PACKAGES, SERVER_FOLDERS)).toEqual([]);
  });

  test('the walk reaches every command declaration, and no runner', () => {
    const files = [...reach('src/cli/main.ts').keys()];
    for (const declaration of [
      'src/cli/commands/chat/index.ts',
      'src/cli/commands/audit/verify.ts',
      'src/cli/commands/legion/serve-tool.ts',
      'src/cli/commands/policy/explain.ts',
    ]) {
      expect(files).toContain(declaration);
    }
    expect(files.filter((f) => f.endsWith('.run.ts') || f.endsWith('/chat/run.ts'))).toEqual([]);
    expect(files).toContain('pkg:commander');
  });
});

describe('the client commands (chat, invoke, confirm, reject)', () => {
  test('their runners reach no server package and no server code', () => {
    const brainButApi = SERVER_FOLDERS.map((f) =>
      f.folder === 'src/brain/'
        ? { folder: 'src/brain/', except: [...reach('src/brain/api/index.ts').keys()] }
        : f,
    );
    const folders = [...brainButApi, { folder: 'src/cli/stack/' }];
    expect(forbidden('src/cli/client.ts', SERVER_PACKAGES, folders)).toEqual([]);
  });

  test('the walk follows them down to the config loader and the API contract', () => {
    const reached = reach('src/cli/client.ts');
    for (const node of [
      'src/cli/api-client.ts',
      'src/brain/api/contract.ts',
      'src/brain/api/tokens-file.ts',
      'src/config/load.ts',
      'pkg:zod',
    ]) {
      expect(reached.has(node), node).toBe(true);
    }
  });
});

describe('the walk', () => {
  test('finds the server behind a runner, so the checks above can fail', () => {
    expect(forbidden('src/cli/commands/brain.run.ts', HEAVY_PACKAGES, [])).toContainEqual(
      expect.stringMatching(/-> pkg:fastify$/),
    );
  });

  test('skips `import type`', () => {
    // chat/index.ts takes only the ChatFlags type from io.ts
    expect(reach('src/cli/commands/chat/index.ts').has('src/cli/commands/chat/io.ts')).toBe(false);
  });
});
