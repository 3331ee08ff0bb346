import { CORE_SCHEMA, dump, load, YAMLException, type LoadOptions } from 'js-yaml';
import {
  MAX_NESTING_DEPTH,
  MAX_YAML_ALIAS_NODES,
  MAX_YAML_ALIASES,
  MAX_YAML_BYTES,
} from './bounds.js';
import { formatPath } from './format-path.js';
import { offsetAt, YamlBoundBreak, YamlWalk, type PositionNode } from './yaml-walk.js';

// The one YAML reader (ADR 0042): policy, cases, intents, config and API tokens files all go
// through `readYaml`, on js-yaml (the design card's library), within one set of bounds
// (bounds.ts, docs/security.md), and report problems in one shape, `file:line:col: path:
// message`. Nothing else in src/ or workers/ imports a YAML library (test/unit/text guards it).

/** One problem in a YAML file, pointing at the node that caused it. */
export interface YamlIssue {
  /** Dotted path into the document, such as `allowed_services[1].target`; '' for the file. */
  readonly path: string;
  /** 1-based line of the offending node. */
  readonly line: number;
  /** 1-based column of the offending node. */
  readonly column: number;
  readonly message: string;
}

/** Options of `readYaml`; every bound defaults to the shared number in bounds.ts. */
interface ReadYamlOptions {
  /** Alias (`*name`) uses allowed; 0 refuses any. @default MAX_YAML_ALIASES */
  readonly maxAliases?: number;
  /** Deepest nesting of maps and lists, aliases included. @default MAX_NESTING_DEPTH */
  readonly maxDepth?: number;
  /** Size of the text in UTF-8 bytes. @default MAX_YAML_BYTES */
  readonly maxBytes?: number;
}

/** A parsed YAML text that can point any path back at its line and column. */
export interface YamlDocument {
  /**
   * The document as plain data: `null` for a text with no document (empty, or comments
   * only), `undefined` when it did not parse (then `issues` says why).
   */
  readonly value: unknown;
  /** Syntax errors and broken bounds, each `YAML: …`; empty when the text parsed. */
  readonly issues: readonly YamlIssue[];
  /** Line and column of the node at `path` (or of the key `key` in it), else of an ancestor. */
  locate(path: readonly PropertyKey[], key?: string): { line: number; column: number };
  /** A located issue at `path`; `key` points at a map key instead of its value. */
  issueAt(path: readonly PropertyKey[], message: string, key?: string): YamlIssue;
}

/** `file:line:column: path: message`, the form editors and terminals link. */
export function formatYamlIssue(file: string, issue: YamlIssue): string {
  const where = issue.path === '' ? '' : `${issue.path}: `;
  return `${file}:${issue.line}:${issue.column}: ${where}${issue.message}`;
}

/** Parses one YAML document (YAML 1.2 core schema, unique keys) within the bounds. */
export function readYaml(text: string, options: ReadYamlOptions = {}): YamlDocument {
  const maxDepth = options.maxDepth ?? MAX_NESTING_DEPTH;
  const maxBytes = options.maxBytes ?? MAX_YAML_BYTES;
  const lines = lineStarts(text);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    return failed(lines, {
      offset: 0,
      message: `the text is ${bytes} bytes, over the limit of ${maxBytes} bytes`,
    });
  }
  const walk = new YamlWalk(text, {
    maxAliases: options.maxAliases ?? MAX_YAML_ALIASES,
    maxAliasNodes: MAX_YAML_ALIAS_NODES,
    maxDepth,
  });
  // js-yaml's own depth (composeNode calls) is at most two per level of maps and lists, so
  // twice ours and a margin lets every document within our bound through to the walk, which
  // checks ours exactly, and stops the recursive parser long before the stack could overflow.
  const loadOptions: LoadOptions & { maxDepth: number } = {
    schema: CORE_SCHEMA,
    listener: walk.listener,
    maxDepth: 2 * maxDepth + 4,
  };
  let value: unknown;
  try {
    value = load(text, loadOptions) ?? null;
  } catch (err) {
    return failed(lines, stopped(err, walk), walk.root);
  }
  return document(value, [], lines, walk.root);
}

interface BoundIssue {
  readonly offset: number;
  readonly message: string;
}

/** Why and where the parse stopped: a broken bound, or js-yaml's own error. */
function stopped(err: unknown, walk: YamlWalk): BoundIssue {
  if (err instanceof YamlBoundBreak) return { offset: err.offset, message: err.reason };
  if (!(err instanceof YAMLException)) {
    return { offset: 0, message: err instanceof Error ? err.message : String(err) };
  }
  // js-yaml stopped at its own depth limit (see readYaml): the walk knows where ours broke.
  const deep = walk.tooDeepAt();
  if (deep !== undefined) return { offset: deep, message: walk.depthMessage() };
  const mark = err.mark?.position ?? 0;
  return { offset: walk.nodeStartBefore(mark) ?? mark, message: err.reason };
}

function failed(
  lines: readonly number[],
  issue: BoundIssue,
  root?: PositionNode | number,
): YamlDocument {
  const at = position(lines, issue.offset);
  return document(undefined, [{ path: '', ...at, message: `YAML: ${issue.message}` }], lines, root);
}

function document(
  value: unknown,
  issues: readonly YamlIssue[],
  lines: readonly number[],
  root: PositionNode | number | undefined,
): YamlDocument {
  const locate = (path: readonly PropertyKey[], key?: string) =>
    position(lines, offsetAt(root, path, key));
  const issueAt = (path: readonly PropertyKey[], message: string, key?: string): YamlIssue => ({
    path: formatPath(key === undefined ? path : [...path, key]),
    ...locate(path, key),
    message,
  });
  return { value, issues, locate, issueAt };
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line and column of an offset, by binary search over line starts. */
function position(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
}

/**
 * One value as YAML in flow style on one line (`5s`, `[a, b]`, `'*'`), quoted where YAML
 * would read it as something else: what generated files (config/caesar.example.yaml) write.
 */
export function yamlFlowText(value: unknown): string {
  return dump(value, { flowLevel: 0, lineWidth: -1, quotingType: '"' }).trimEnd();
}

/**
 * A whole document as block-style YAML (what `caesar catalog` writes): keys in the order
 * given, strings quoted only where YAML would read them as something else, no line wrapping,
 * no anchors; nodes nested `flowLevel` deep or deeper in flow style (`[tool, web]`), none
 * when -1.
 */
export function yamlDocumentText(value: unknown, flowLevel = -1): string {
  return dump(value, { flowLevel, lineWidth: -1, noRefs: true, quotingType: '"' });
}
