import { LineCounter, parseDocument } from 'yaml';
import {
  formatPath,
  yamlLinePos,
  yamlNodeOffset,
  yamlTextTooDeep,
  yamlToJs,
} from '../text/index.js';
import type { z } from 'zod';
import { parseSimpleYaml } from './fast-yaml.js';
import type { PolicyIssue } from './issues.js';
import { describeZodIssue } from './zod-messages.js';

/** A parsed YAML text that can point any path back at its line and column. */
export interface YamlSource {
  readonly value: unknown;
  /** Syntax errors and warnings (unknown tags, duplicate keys); empty when the text parsed. */
  readonly syntaxIssues: readonly PolicyIssue[];
  /** Line and column of the node at `path`, or of its nearest existing ancestor. */
  locate(path: readonly PropertyKey[], key?: string): { line: number; column: number };
  /** A located issue at `path`; `key` points at a map key instead of its value. */
  issueAt(path: readonly PropertyKey[], message: string, key?: string): PolicyIssue;
  /** Turns zod issues (paths relative to `base`) into located issues. */
  fromZod(issues: readonly z.core.$ZodIssue[], base?: readonly PropertyKey[]): PolicyIssue[];
}

type Locate = YamlSource['locate'];

/**
 * Parses one YAML document, keeping every node's position. Plain-layout files take the fast
 * reader (see fast-yaml.ts); the full parser then runs only if a position deeper than a rule
 * is asked for (to report a problem). Anything else takes the full parser at once.
 */
export function parseYamlSource(text: string): YamlSource {
  const fast = parseSimpleYaml(text);
  if (fast === null) return fullSource(text);
  let full: YamlSource | null = null;
  const lines = lineStarts(text);
  const locate: Locate = (path, key) => {
    const offset =
      key === undefined && path.length === 2
        ? fast.itemOffsets.get(`${String(path[0])}\0${String(path[1])}`)
        : key !== undefined && path.length === 0
          ? fast.keyOffsets.get(key)
          : undefined;
    if (offset !== undefined) return position(lines, offset);
    full ??= fullSource(text);
    return full.locate(path, key);
  };
  return withLocate(fast.value, [], locate);
}

/**
 * The full parser, within the shared bounds (src/text/bounds.ts): nesting depth is checked
 * on the text first (the library composes recursively, and a 5,000-level file overflowed the
 * stack), alias uses (at most MAX_YAML_ALIASES) and their expansion when turning it into data.
 */
function fullSource(text: string): YamlSource {
  const deep = yamlTextTooDeep(text);
  if (deep !== undefined) {
    const at = yamlLinePos(text, deep.offset);
    const issue = { path: '', line: at.line, column: at.col, message: `YAML: ${deep.message}` };
    return withLocate(null, [issue], () => ({ line: at.line, column: at.col }));
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const pos = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const syntaxIssues = [...doc.errors, ...doc.warnings].map((e) => ({
    path: '',
    ...pos(e.pos[0]),
    message: `YAML: ${e.message}`,
  }));
  let value: unknown = null;
  if (doc.errors.length === 0) {
    const js = yamlToJs(doc);
    if ('value' in js) value = js.value;
    else
      syntaxIssues.push({
        path: '',
        ...pos(js.issue.offset),
        message: `YAML: ${js.issue.message}`,
      });
  }
  return withLocate(value, syntaxIssues, (path, key) => pos(yamlNodeOffset(doc, path, key)));
}

function withLocate(
  value: unknown,
  syntaxIssues: readonly PolicyIssue[],
  locate: Locate,
): YamlSource {
  const issueAt = (path: readonly PropertyKey[], message: string, key?: string): PolicyIssue => ({
    path: formatPath(key === undefined ? path : [...path, key]),
    ...locate(path, key),
    message,
  });
  const fromZod = (issues: readonly z.core.$ZodIssue[], base: readonly PropertyKey[] = []) =>
    issues.flatMap((issue) =>
      describeZodIssue(issue).map((d) => issueAt([...base, ...issue.path], d.message, d.key)),
    );
  return { value, syntaxIssues, locate, issueAt, fromZod };
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
