import { isScalar, Schema, type ParseOptions } from 'yaml';
import { MAX_NESTING_DEPTH } from '../text/index.js';

/**
 * A fast reader for the plain layout policy files use (block maps and lists, one-line flow
 * collections, plain and simple quoted scalars, comments). It gives up (returns null) on
 * anything else, and the caller then parses with the full `yaml` library; it never guesses.
 * When it does return, the value is exactly what `parseDocument(text).toJS()` gives for the
 * same text (plain scalars are resolved by the library's own YAML 1.2 core tags), which the
 * differential tests check. It exists because reloading a 1,000-rule policy must take
 * milliseconds, and the full parser's CST costs ten times the whole compile.
 */

/**
 * The parsed value, the offsets of the items of the top-level lists (`list\0index`) and the
 * offsets of the top-level keys (`key`).
 */
export interface FastYaml {
  readonly value: Record<string, unknown>;
  readonly itemOffsets: ReadonlyMap<string, number>;
  readonly keyOffsets: ReadonlyMap<string, number>;
}

const FAIL = Symbol('fail');

/** Thrown from deep inside the reader to give up at once; never escapes parseSimpleYaml. */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp('layout not supported by the fast reader');
type Result = unknown;

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_]*):(?:[ ]+(.*))?$/;
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const BAD_TEXT = /[\t\r\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff\u2028\u2029]/;
/** Characters that cannot start a plain scalar we accept. */
const BAD_PLAIN_START = new Set([...'-?:,[]{}#&*!|>\'"%@`']);
const FLOW_STOP = new Set([...',[]{}']);
const PARSE_OPTIONS = { intAsBigInt: false } as ParseOptions;
const CORE_TAGS = new Schema({}).tags.filter(
  (t): t is typeof t & { test: RegExp } => 'test' in t && t.test instanceof RegExp,
);

/** Parses `text` if it uses only the plain layout; null means "use the full parser". */
export function parseSimpleYaml(text: string): FastYaml | null {
  if (BAD_TEXT.test(text)) return null;
  const reader = new Reader(text);
  try {
    const first = reader.peek();
    if (first < 0 || reader.indent(first) !== 0) return null;
    const value = reader.map(0, 0);
    if (value === FAIL || reader.peek() >= 0) return null;
    const { offsets, keyOffsets } = reader;
    return { value: value as Record<string, unknown>, itemOffsets: offsets, keyOffsets };
  } catch (err) {
    if (err instanceof GiveUp) return null;
    throw err;
  }
}

class Reader {
  readonly lines: string[];
  /** Maps and lists open around the current line (the document map is 1). */
  private level = 0;
  readonly starts: number[] = [];
  readonly offsets = new Map<string, number>();
  readonly keyOffsets = new Map<string, number>();
  private next = 0;

  constructor(text: string) {
    this.lines = text.split('\n');
    let at = 0;
    for (const line of this.lines) {
      this.starts.push(at);
      at += line.length + 1;
    }
  }

  /** Index of the next line with content (not blank, not a comment), or -1. */
  peek(): number {
    for (let i = this.next; i < this.lines.length; i++) {
      const line = this.lines[i] as string;
      const trimmed = line.trimStart();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      if (/^(---|\.\.\.|%)/.test(line)) throw GIVE_UP;
      return i;
    }
    return -1;
  }

  indent(i: number): number {
    const line = this.lines[i] as string;
    return line.length - line.trimStart().length;
  }

  /** A block map whose keys sit at column `indent`; `depth` 0 is the document. */
  map(indent: number, depth: number): Result {
    const out: Record<string, unknown> = {};
    this.enter();
    for (let i = this.peek(); i >= 0 && this.indent(i) === indent; i = this.peek()) {
      const m = KEY_LINE.exec((this.lines[i] as string).slice(indent));
      if (!m) return FAIL;
      const key = m[1] as string;
      if (!plainKey(key) || Object.hasOwn(out, key)) return FAIL;
      if (depth === 0) this.keyOffsets.set(key, (this.starts[i] as number) + indent);
      this.next = i + 1;
      const rest = stripComment(m[2] ?? '');
      out[key] =
        rest === '' ? this.nested(indent, depth === 0 ? key : null) : this.inline(rest, indent);
    }
    this.level--;
    return out;
  }

  /**
   * One level deeper. Past MAX_NESTING_DEPTH the full parser takes over: it reports the depth
   * with its position, and this reader's recursion stays shallow.
   */
  private enter(): void {
    if (++this.level > MAX_NESTING_DEPTH) throw GIVE_UP;
  }

  /** The block value under a `key:` line: a deeper map or list, a list at the same column, or null. */
  private nested(indent: number, listName: string | null): Result {
    const i = this.peek();
    if (i < 0) return null;
    const at = this.indent(i);
    const dash = (this.lines[i] as string).slice(at).startsWith('- ');
    if (at > indent) return dash ? this.seq(at, listName) : this.map(at, 1);
    if (at === indent && dash) return this.seq(at, listName);
    return null;
  }

  /** A block list whose dashes sit at column `indent`. */
  private seq(indent: number, listName: string | null): Result {
    const out: unknown[] = [];
    this.enter();
    for (let i = this.peek(); i >= 0 && this.indent(i) === indent; i = this.peek()) {
      const line = this.lines[i] as string;
      if (!line.slice(indent).startsWith('- ')) break;
      const content = line.slice(indent + 2).trimStart();
      const column = line.length - content.length;
      if (listName !== null)
        this.offsets.set(`${listName}\0${out.length}`, this.starts[i]! + column);
      if (KEY_LINE.test(content)) {
        this.lines[i] = ' '.repeat(column) + content;
        out.push(this.check(this.map(column, 1)));
      } else {
        this.next = i + 1;
        out.push(this.inline(stripComment(content), indent));
      }
    }
    this.level--;
    return out;
  }

  /** A value written on the rest of a line; the next content line must not be deeper. */
  private inline(text: string, parentIndent: number): Result {
    const value = this.check(parseInline(text, this.level));
    const after = this.peek();
    if (after >= 0 && this.indent(after) > parentIndent) throw GIVE_UP;
    return value;
  }

  private check(value: Result): Result {
    if (value === FAIL) throw GIVE_UP;
    return value;
  }
}

/** A key the core schema reads as a string, short enough to be an implicit key. */
function plainKey(key: string): boolean {
  return key.length <= 128 && key !== '__proto__' && typeof resolvePlain(key) === 'string';
}

/** Removes a trailing ` # comment` (a `#` not preceded by a space is content). */
function stripComment(text: string): string {
  if (text.startsWith('#')) return '';
  const hash = text.indexOf(' #');
  return (hash < 0 ? text : text.slice(0, hash)).trimEnd();
}

function parseInline(text: string, level: number): Result {
  const first = text[0];
  if (first === '[' || first === '{') {
    const cursor = { text, at: 0, level };
    const value = flowValue(cursor);
    return cursor.at === text.length ? value : FAIL;
  }
  if (first === "'" || first === '"') {
    const q = quoted(text, 0);
    return q !== FAIL && q.end === text.length ? q.value : FAIL;
  }
  return plain(text, false);
}

interface Cursor {
  text: string;
  at: number;
  /** Collections open around `at`, counting the block ones (see Reader.enter). */
  level: number;
}

function skipSpaces(c: Cursor): void {
  while (c.text[c.at] === ' ') c.at++;
}

function flowValue(c: Cursor): Result {
  skipSpaces(c);
  const ch = c.text[c.at];
  if (ch === '[') return flowSeq(c);
  if (ch === '{') return flowMap(c);
  if (ch === "'" || ch === '"') {
    const q = quoted(c.text, c.at);
    if (q === FAIL) return FAIL;
    c.at = q.end;
    return q.value;
  }
  const start = c.at;
  while (c.at < c.text.length && !FLOW_STOP.has(c.text[c.at] as string)) c.at++;
  const raw = c.text.slice(start, c.at).trim();
  return raw.includes(':') || raw.includes('#') ? FAIL : plain(raw, true);
}

function flowSeq(c: Cursor): Result {
  const out: unknown[] = [];
  if (++c.level > MAX_NESTING_DEPTH) return FAIL;
  c.at++;
  skipSpaces(c);
  if (c.text[c.at] === ']') return (c.at++, c.level--, out);
  for (;;) {
    const v = flowValue(c);
    if (v === FAIL) return FAIL;
    out.push(v);
    skipSpaces(c);
    const ch = c.text[c.at++];
    if (ch === ']') return (c.level--, out);
    if (ch !== ',') return FAIL;
  }
}

function flowMap(c: Cursor): Result {
  const out: Record<string, unknown> = {};
  if (++c.level > MAX_NESTING_DEPTH) return FAIL;
  c.at++;
  skipSpaces(c);
  if (c.text[c.at] === '}') return (c.at++, c.level--, out);
  for (;;) {
    skipSpaces(c);
    const m = /^([A-Za-z_][A-Za-z0-9_]*): /.exec(c.text.slice(c.at));
    if (!m) return FAIL;
    const key = m[1] as string;
    if (!plainKey(key) || Object.hasOwn(out, key)) return FAIL;
    c.at += m[0].length;
    const v = flowValue(c);
    if (v === FAIL) return FAIL;
    out[key] = v;
    skipSpaces(c);
    const ch = c.text[c.at++];
    if (ch === '}') return (c.level--, out);
    if (ch !== ',') return FAIL;
  }
}

/** A quoted scalar on one line; double quotes only without escapes. */
function quoted(text: string, start: number): { value: string; end: number } | typeof FAIL {
  const q = text[start];
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (q === '"' && ch === '\\') return FAIL;
    if (ch !== q) {
      value += ch;
      continue;
    }
    if (q === "'" && text[i + 1] === "'") {
      value += "'";
      i++;
      continue;
    }
    return { value, end: i + 1 };
  }
  return FAIL;
}

function plain(raw: string, inFlow: boolean): Result {
  if (raw === '') return FAIL;
  const first = raw[0] as string;
  const numeric = first === '-' && /^-[0-9.]/.test(raw);
  if (BAD_PLAIN_START.has(first) && !numeric) return FAIL;
  if (raw.includes(': ') || raw.endsWith(':') || raw.includes(' #')) return FAIL;
  if (inFlow && /[,[\]{}]/.test(raw)) return FAIL;
  return resolvePlain(raw);
}

/**
 * Every core-schema tag but `str` (null, bool, int, float) only matches scalars that start with
 * one of these characters; the differential tests keep this in step with the library.
 */
const MAYBE_TYPED = /^(?:$|[~nNtTfF0-9+\-.])/;

/** Resolves a plain scalar exactly as the `yaml` library's core schema does. */
function resolvePlain(raw: string): unknown {
  if (!MAYBE_TYPED.test(raw)) return raw;
  const tag = CORE_TAGS.find((t) => t.default === true && t.test.test(raw));
  if (!tag || !('resolve' in tag)) return raw;
  const value: unknown = tag.resolve(raw, () => undefined, PARSE_OPTIONS);
  return isScalar(value) ? value.value : value;
}
