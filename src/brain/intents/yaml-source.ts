import { LineCounter, parseDocument } from 'yaml';
import { formatPath, yamlNodeOffset } from '../../runtime/index.js';
import type { IntentsIssue } from './errors.js';

/** Aliases may expand at most this many times: a "billion laughs" file fails to load. */
const MAX_ALIAS_COUNT = 100;

/** A parsed YAML text that can point any path back at its line and column. */
export interface YamlSource {
  /** The document as plain data; `undefined` when it did not parse (see `syntaxIssues`). */
  readonly value: unknown;
  /** Syntax errors and warnings (unknown tags, duplicate keys); empty when the text parsed. */
  readonly syntaxIssues: readonly IntentsIssue[];
  /** A located issue at `path`; `key` points at a map key instead of its value. */
  issueAt(path: readonly PropertyKey[], message: string, key?: string): IntentsIssue;
}

/** Parses one YAML document, keeping every node's position for error messages. */
export function parseYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const pos = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const syntaxIssues: IntentsIssue[] = [...doc.errors, ...doc.warnings].map((e) => ({
    path: '',
    ...pos(e.pos[0]),
    message: `YAML: ${e.message}`,
  }));
  let value: unknown;
  if (doc.errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      syntaxIssues.push({ path: '', line: 1, column: 1, message: `YAML: ${String(err)}` });
    }
  }
  const issueAt = (path: readonly PropertyKey[], message: string, key?: string) => ({
    path: formatPath(key === undefined ? path : [...path, key]),
    ...pos(yamlNodeOffset(doc, path, key)),
    message,
  });
  return { value, syntaxIssues, issueAt };
}
