import { readFileSync, readdirSync } from 'node:fs';
import { posix } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { ROOT, sources } from '../helpers/sources.js';

// STYLE 10, issue 12: each module's index.ts names what other modules (src/, workers/, bench/,
// scripts/) import from it, and nothing more. Tests are not modules: a test that needs an
// internal name imports the file that declares it. Parsed file by file with
// ts.createSourceFile (no Program, no type checker): the check itself takes well under a
// second; loading the compiler takes the rest of the few seconds this file runs.

/**
 * Index exports that no other module imports today, kept on purpose. Each entry says why.
 * A name listed here that the index no longer exports fails the test, so the list cannot rot.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // The worker SDK is the public API of tool authors (docs/legion.md). Beside what the shipped
  // workers import, a tool author needs the types to declare, serve and run tools, the error
  // a bad declaration throws, and the HTTP client's options, failure kinds, probe result and
  // defaults; and the catalogue's message builder, for their own coded errors.
  'src/legion/index.ts': [
    'errorMessage',
    'ToolDefinitionError',
    'ToolDefinitionInput',
    'ToolConfigError',
    'BusPermissionError',
    'ServeOptions',
    'ToolWorker',
    'ToolInstance',
    'RunToolsOptions',
    'HttpBackendOptions',
    'HttpFailureKind',
    'ProbeResult',
    'USER_AGENT',
    'DEFAULT_MAX_RESPONSE_BYTES',
    // The thread pool's run options, and the margin its time bound keeps before a deadline,
    // which a tool sizes its `maxRunMs` against (docs/legion.md).
    'ThreadRunOptions',
    'DEADLINE_RESERVE_MS',
    // A tool with actions (ADR 0092): the helper that types one action's handler, the most
    // actions a tool may have, and the types a tool author declares and serves them with.
    'action',
    'MAX_ACTIONS',
    'ActionInput',
    'ActionToolDefinition',
    'ActionToolInput',
  ],
  // The intents library API docs/intents.md shows; the brain itself now keeps its live rules
  // in an IntentStore, which reloads the file on save.
  'src/brain/intents/index.ts': ['loadIntents'],
};

const USERS = ['src', 'workers', 'bench', 'scripts'];

/** Names a file takes from `target`; `*` for all of them (`import * as`, `export *`). */
interface Use {
  target: string;
  /** `name` as the target exports it, `as` as this file re-exports it. */
  names: readonly { name: string; as: string }[] | '*';
  /** `export ... from`: a use only if the re-exported name is used in turn. */
  reexport: boolean;
}

interface Parsed {
  uses: Use[];
  /** Names the file exports (declared here or re-exported). */
  exports: string[];
  exportStar: boolean;
}

function files(dir: string): string[] {
  if (dir !== 'scripts') return sources(dir);
  return readdirSync(posix.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|mjs|js)$/.test(f))
    .map((f) => posix.join(dir, f));
}

/** A relative specifier to the root-relative source file it names (`./a.js` -> `dir/a.ts`). */
function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  return posix.join(posix.dirname(from), spec).replace(/\.js$/, '.ts');
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** `(await import('./x.js')).name` and `const { a, b } = await import('./x.js')`. */
function dynamicNames(call: ts.CallExpression): readonly string[] | '*' {
  let node: ts.Node = call.parent;
  while (ts.isAwaitExpression(node) || ts.isParenthesizedExpression(node)) node = node.parent;
  if (ts.isPropertyAccessExpression(node)) return [node.name.text];
  if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name)) {
    return node.name.elements.map((e) => ((e.propertyName ?? e.name) as ts.Identifier).text);
  }
  return '*';
}

const plain = (names: readonly string[] | '*') =>
  names === '*' ? names : names.map((name) => ({ name, as: name }));

function firstName(name: ts.EntityName): string {
  return ts.isIdentifier(name) ? name.text : firstName(name.left);
}

function parse(file: string): Parsed {
  const text = readFileSync(posix.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Parsed = { uses: [], exports: [], exportStar: false };
  const use = (spec: ts.Expression | undefined, names: Use['names'], reexport = false): void => {
    const target = spec && ts.isStringLiteral(spec) ? resolve(file, spec.text) : undefined;
    if (target) out.uses.push({ target, names, reexport });
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) {
      const bindings = st.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) use(st.moduleSpecifier, '*');
      else {
        const names = bindings?.elements.map((e) => (e.propertyName ?? e.name).text) ?? [];
        if (st.importClause?.name) names.push('default');
        use(st.moduleSpecifier, plain(names));
      }
    } else if (ts.isExportDeclaration(st)) {
      const clause = st.exportClause;
      if (!clause) {
        out.exportStar = true;
        use(st.moduleSpecifier, '*', true);
      } else if (ts.isNamespaceExport(clause)) {
        out.exports.push(clause.name.text);
        use(st.moduleSpecifier, '*');
      } else {
        out.exports.push(...clause.elements.map((e) => e.name.text));
        const names = clause.elements.map((e) => ({
          name: (e.propertyName ?? e.name).text,
          as: e.name.text,
        }));
        use(st.moduleSpecifier, names, true);
      }
    } else if (ts.isExportAssignment(st)) {
      out.exports.push('default');
    } else if (hasExport(st)) {
      if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) out.exports.push(d.name.getText(sf));
      } else {
        const name = (st as ts.DeclarationStatement).name;
        out.exports.push(name ? name.getText(sf) : 'default');
      }
    }
  }
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    ) {
      use(node.arguments[0], plain(dynamicNames(node)));
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      // `import('./x.js').Name` in a type position
      use(node.argument.literal, plain(node.qualifier ? [firstName(node.qualifier)] : '*'));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const parsed = new Map(USERS.flatMap(files).map((f) => [f, parse(f)] as const));
const indexes = [...parsed.keys()].filter((f) => posix.basename(f) === 'index.ts');

/**
 * Whether a file outside `target`'s module (its folder, for an index) takes `name` from it:
 * imports it, or re-exports it under a name that is used (or allowed) in turn.
 */
function isUsed(target: string, name: string, seen = new Set<string>()): boolean {
  if (seen.has(`${target}#${name}`)) return false;
  seen.add(`${target}#${name}`);
  const inside = posix.basename(target) === 'index.ts' ? `${posix.dirname(target)}/` : target;
  for (const [file, p] of parsed) {
    if (file === target || file.startsWith(inside)) continue;
    for (const u of p.uses) {
      if (u.target !== target) continue;
      const as = u.names === '*' ? name : u.names.find((n) => n.name === name)?.as;
      if (as === undefined) continue;
      if (!u.reexport || ALLOWED[file]?.includes(as) || isUsed(file, as, seen)) return true;
    }
  }
  return false;
}

/** For each index, the names it exports that no file outside its folder takes from it. */
function unusedIndexExports(): Record<string, string[]> {
  const unused: Record<string, string[]> = {};
  for (const index of indexes) {
    const allowed = ALLOWED[index] ?? [];
    const names = parsed
      .get(index)!
      .exports.filter((n) => !allowed.includes(n) && !isUsed(index, n));
    if (names.length > 0) unused[index] = names;
  }
  return unused;
}

test('finds the modules', () => {
  expect(indexes).toContain('src/audit/index.ts');
  expect(indexes).toContain('workers/index.ts');
  expect(indexes.length).toBeGreaterThan(20);
});

test('every name an index.ts exports is imported by a file outside its module', () => {
  expect(unusedIndexExports()).toEqual({});
});

test('the allow-list names only names its index still exports', () => {
  const stale = Object.entries(ALLOWED).flatMap(([index, names]) =>
    names.filter((n) => !parsed.get(index)?.exports.includes(n)).map((n) => `${index}: ${n}`),
  );
  expect(stale).toEqual([]);
});

test('no module re-exports with export *', () => {
  expect([...parsed].filter(([, p]) => p.exportStar).map(([f]) => f)).toEqual([]);
});
