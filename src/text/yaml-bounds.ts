import { Parser, visit, type CST, type Document } from 'yaml';
import { findTooDeep, MAX_NESTING_DEPTH, MAX_YAML_ALIASES } from './bounds.js';
import { formatPath } from './format-path.js';
import { yamlNodeOffset } from './yaml-offset.js';

// The shared bounds (bounds.ts) applied to YAML files (config, intents, API tokens): nesting
// depth, checked before the document is composed, and alias uses, checked before the
// document is turned into data. Each reader adds its own file name to the position.

/** Where (offset in the text) and why a YAML text breaks a bound. */
export interface YamlBoundIssue {
  readonly offset: number;
  readonly message: string;
}

/**
 * The first map or list nested deeper than `max`, found on the parser's concrete syntax tree
 * without recursion. The `yaml` library composes documents recursively and reports a deep
 * file only as "Maximum call stack size exceeded"; this runs first and says what is wrong.
 * Flow (`[[[`, `{a: {a:`) and block (indented) collections count alike.
 */
export function yamlTextTooDeep(
  text: string,
  max: number = MAX_NESTING_DEPTH,
): YamlBoundIssue | undefined {
  const stack: { token: CST.Token; depth: number }[] = [];
  for (const token of new Parser().parse(text)) stack.push({ token, depth: 0 });
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token.type === 'document') {
      if (token.value !== undefined) stack.push({ token: token.value, depth });
      continue;
    }
    if (
      token.type !== 'block-map' &&
      token.type !== 'block-seq' &&
      token.type !== 'flow-collection'
    ) {
      continue;
    }
    if (depth + 1 > max) {
      return { offset: token.offset, message: `nests deeper than ${max} levels of maps and lists` };
    }
    for (const item of token.items) {
      const key = 'key' in item ? item.key : undefined;
      if (key) stack.push({ token: key, depth: depth + 1 });
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Options of `yamlToJs`. */
export interface YamlToJsOptions {
  /** Alias (`*name`) uses allowed in the document; 0 refuses any. @default MAX_YAML_ALIASES */
  readonly maxAliases?: number;
  /** @default MAX_NESTING_DEPTH */
  readonly maxDepth?: number;
}

/**
 * A composed document (without errors) as plain data, within the alias and depth bounds:
 * at most `maxAliases` alias uses (the next one is named by its position); expansions bounded
 * by the library's own check; and a result no deeper than `maxDepth` (aliases can nest a
 * value deeper than the text shows). Run `yamlTextTooDeep` on the text first: composing a
 * very deep text already fails inside the library.
 */
export function yamlToJs(
  doc: Document,
  options: YamlToJsOptions = {},
): { readonly value: unknown } | { readonly issue: YamlBoundIssue } {
  const maxAliases = options.maxAliases ?? MAX_YAML_ALIASES;
  const maxDepth = options.maxDepth ?? MAX_NESTING_DEPTH;
  let uses = 0;
  let over: YamlBoundIssue | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (++uses <= maxAliases) return undefined;
      const message =
        maxAliases === 0
          ? `YAML aliases (*${node.source}) are not allowed in this file`
          : `more than ${maxAliases} YAML aliases (*${node.source} is number ${uses})`;
      over = { offset: node.range?.[0] ?? 0, message };
      return visit.BREAK;
    },
  });
  if (over !== undefined) return { issue: over };
  let value: unknown;
  try {
    // The library counts an anchor's definition as one use: +1 allows `maxAliases` uses.
    // Its product rule also bounds how far nested aliases expand ("billion laughs").
    value = doc.toJS({ maxAliasCount: maxAliases + 1 });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { issue: { offset: 0, message: `YAML aliases expand too far: ${why}` } };
  }
  const path = uses > 0 ? findTooDeep(value, maxDepth) : undefined;
  if (path !== undefined) {
    const at = formatPath(path) || '(root)';
    const message = `nests deeper than ${maxDepth} levels of maps and lists at ${at} (through aliases)`;
    return { issue: { offset: yamlNodeOffset(doc, path), message } };
  }
  return { value };
}

/** Line and column (from 1) of `offset` in `text`, for a reader that stopped before parsing. */
export function yamlLinePos(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}
