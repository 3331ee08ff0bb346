import { LineCounter, parseDocument } from 'yaml';
import {
  formatPath,
  yamlLinePos,
  yamlNodeOffset,
  yamlTextTooDeep,
  yamlToJs,
} from '../../text/index.js';
import type { IntentsIssue } from './errors.js';

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
  // Bounds (docs/security.md): depth before composing, aliases and depth again in yamlToJs.
  const tooDeep = yamlTextTooDeep(text);
  if (tooDeep !== undefined) {
    const p = yamlLinePos(text, tooDeep.offset);
    const issue = { path: '', line: p.line, column: p.col, message: `YAML: ${tooDeep.message}` };
    return {
      value: undefined,
      syntaxIssues: [issue],
      issueAt: (path, message) => ({ ...issue, path: formatPath(path), message }),
    };
  }
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
    const converted = yamlToJs(doc);
    if ('issue' in converted) {
      const { offset, message } = converted.issue;
      syntaxIssues.push({ path: '', ...pos(offset), message: `YAML: ${message}` });
    } else value = converted.value;
  }
  const issueAt = (path: readonly PropertyKey[], message: string, key?: string) => ({
    path: formatPath(key === undefined ? path : [...path, key]),
    ...pos(yamlNodeOffset(doc, path, key)),
    message,
  });
  return { value, syntaxIssues, issueAt };
}
