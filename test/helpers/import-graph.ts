import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import ts from 'typescript';
import { ROOT } from './sources.js';

/**
 * The static import graph of the sources, as Node loads it: `import` and `export ... from`
 * count; `import type` and `export type` do not (erased), nor does `import()` (loaded when
 * it runs). With `verbatimModuleSyntax`, `import { type A } from` stays in the output as
 * `import {} from`, so it counts. Parsed file by file with ts.createSourceFile: no type
 * checker, no process.
 */

/** A node of the graph: a root-relative source file (`src/cli/main.ts`) or `pkg:<name>`. */
export type GraphNode = string;

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** What `file` imports statically: source files and `pkg:` names (`node:` built-ins left out). */
export function staticImports(file: string): GraphNode[] {
  const text = readFileSync(posix.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const out: GraphNode[] = [];
  for (const st of sf.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(st) && !st.importClause?.isTypeOnly) spec = st.moduleSpecifier;
    if (ts.isExportDeclaration(st) && !st.isTypeOnly) spec = st.moduleSpecifier;
    if (spec === undefined || !ts.isStringLiteral(spec) || spec.text.startsWith('node:')) continue;
    if (!spec.text.startsWith('.')) {
      out.push(`pkg:${packageName(spec.text)}`);
      continue;
    }
    const target = posix.join(posix.dirname(file), spec.text).replace(/\.js$/, '.ts');
    if (!existsSync(posix.join(ROOT, target)))
      throw new Error(`${file}: no source for ${spec.text}`);
    out.push(target);
  }
  return out;
}

/** Every node reachable from `entry`, each with the chain of imports that first reaches it. */
export function reach(entry: string): Map<GraphNode, readonly GraphNode[]> {
  const chains = new Map<GraphNode, readonly GraphNode[]>([[entry, [entry]]]);
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

/** What an entry may not reach: packages (`@nats-io/*` for a scope) and folders. */
export interface Forbidden {
  readonly packages?: readonly string[];
  /** Root-relative folders (`src/brain/`) or files. */
  readonly paths?: readonly string[];
  /** Files or folders under a forbidden path that may be reached all the same. */
  readonly except?: readonly string[];
}

function matches(node: GraphNode, rule: Forbidden): boolean {
  if (node.startsWith('pkg:')) {
    const name = node.slice(4);
    return (rule.packages ?? []).some((p) =>
      p.endsWith('/*') ? name.startsWith(p.slice(0, -1)) : name === p,
    );
  }
  const under = (prefixes: readonly string[] | undefined) =>
    (prefixes ?? []).some((p) => node === p || node.startsWith(p));
  return under(rule.paths) && !under(rule.except);
}

/** Each forbidden node `entry` reaches, as its import chain (`a.ts -> b.ts -> pkg:zod`). */
export function forbiddenReached(entry: string, rule: Forbidden): string[] {
  return [...reach(entry)]
    .filter(([node]) => matches(node, rule))
    .map(([, chain]) => chain.join(' -> '));
}
