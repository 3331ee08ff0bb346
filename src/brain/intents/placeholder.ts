/**
 * Placeholders in input and reply templates: `{root.path|filter|filter:arg}`.
 * `{{` and `}}` stand for literal braces. Paths read own properties only; `*` maps the rest
 * of the path over an array. Filters: `slug`, `lower`, `json`, `count`, `agenda`, `links`,
 * `or:<text>`.
 */

import { agendaLines, linkLines } from './list-formats.js';

/** A compiled placeholder. */
export interface Placeholder {
  readonly root: string;
  readonly path: readonly string[];
  readonly filters: readonly Filter[];
  /** The placeholder as written, for messages. */
  readonly source: string;
}

type Filter =
  | { readonly name: 'slug' | 'lower' | 'json' | 'count' | 'agenda' | 'links' }
  | { readonly name: 'or'; readonly text: string };

/** A template string: literal text and placeholders, in order. */
export type TemplateParts = readonly (string | Placeholder)[];

/** The filters, for messages and docs. */
const FILTER_NAMES = ['slug', 'lower', 'json', 'count', 'agenda', 'links', 'or'] as const;
const PLAIN_FILTERS = new Set<string>(['slug', 'lower', 'json', 'count', 'agenda', 'links']);

/** Most items a `*` path segment reads from one array. */
const MAX_LIST_ITEMS = 50;
/** Longest text one placeholder renders to; the rest is cut with `…`. */
const MAX_VALUE_CHARS = 1000;

const ROOT_RE = /^[a-z][a-z0-9_]*$/;
const SEGMENT_RE = /^(?:[A-Za-z0-9_-]+|\*)$/;

/** Parses a template string. Throws Error with a message naming the bad placeholder. */
export function parseTemplate(text: string): TemplateParts {
  const parts: (string | Placeholder)[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if ((c === '{' || c === '}') && text[i + 1] === c) {
      literal += c;
      i += 2;
      continue;
    }
    if (c === '}') throw new Error(`unmatched '}' at character ${i + 1} (write }} for a brace)`);
    if (c !== '{') {
      literal += c;
      i++;
      continue;
    }
    const end = text.indexOf('}', i);
    if (end < 0) throw new Error(`unmatched '{' at character ${i + 1} (write {{ for a brace)`);
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(parsePlaceholder(text.slice(i, end + 1)));
    i = end + 1;
  }
  if (literal !== '') parts.push(literal);
  return parts;
}

function parsePlaceholder(source: string): Placeholder {
  const [ref = '', ...filterTexts] = source.slice(1, -1).split('|');
  const [root = '', ...path] = ref.trim().split('.');
  if (!ROOT_RE.test(root) || !path.every((s) => SEGMENT_RE.test(s))) {
    throw new Error(`bad placeholder ${source} (expected {name}, {name.path} or {name|filter})`);
  }
  const filters = filterTexts.map((f) => parseFilter(f, source));
  return { root, path, filters, source };
}

function parseFilter(text: string, source: string): Filter {
  const colon = text.indexOf(':');
  const name = (colon < 0 ? text : text.slice(0, colon)).trim();
  if (name === 'or') {
    if (colon < 0) throw new Error(`filter 'or' in ${source} needs a text: |or:nothing`);
    return { name, text: text.slice(colon + 1) };
  }
  if (PLAIN_FILTERS.has(name)) {
    if (colon >= 0) throw new Error(`filter '${name}' in ${source} takes no argument`);
    return { name: name as Exclude<Filter['name'], 'or'> };
  }
  throw new Error(`unknown filter '${name}' in ${source} (known: ${FILTER_NAMES.join(', ')})`);
}

/** Reads `path` from `value`: own properties, array indexes, and `*` over arrays. */
export function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (let k = 0; k < path.length; k++) {
    const seg = path[k]!;
    if (seg === '*') {
      if (!Array.isArray(current)) return undefined;
      const rest = path.slice(k + 1);
      return current
        .slice(0, MAX_LIST_ITEMS)
        .map((item) => readPath(item, rest))
        .filter((item) => item !== undefined && item !== null);
    }
    if (typeof current !== 'object' || current === null) return undefined;
    if (!Object.hasOwn(current, seg)) return undefined;
    current = (current as Record<string, unknown>)[seg];
  }
  return current;
}

/** Applies the filters in order. Never throws. */
export function applyFilters(value: unknown, filters: readonly Filter[]): unknown {
  let v = value;
  for (const f of filters) {
    if (f.name === 'slug') v = slug(toText(v));
    else if (f.name === 'lower') v = toText(v).toLowerCase();
    else if (f.name === 'json') v = cap(safeJson(v) ?? '');
    else if (f.name === 'count') v = Array.isArray(v) ? v.length : isEmpty(v) ? 0 : 1;
    else if (f.name === 'agenda') v = agendaLines(v);
    else if (f.name === 'links') v = linkLines(v);
    else if (f.name === 'or' && isEmpty(v)) v = f.text;
  }
  return v;
}

/** A value as reply text: strings as they are, lists joined with ", ", objects as JSON. */
export function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return cap(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (Array.isArray(value)) {
    return cap(
      value
        .slice(0, MAX_LIST_ITEMS)
        .map((item) => (typeof item === 'object' && item !== null ? safeJson(item) : toText(item)))
        .join(', '),
    );
  }
  return cap(safeJson(value) ?? '');
}

/**
 * Home Assistant style slug: accents folded (`Küche` -> `kuche`), lowercase, every run of
 * other characters one `_`, no `_` at either end.
 */
function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  } catch {
    return undefined;
  }
}

function cap(text: string): string {
  return text.length <= MAX_VALUE_CHARS ? text : `${text.slice(0, MAX_VALUE_CHARS - 1)}…`;
}
