import type { SearchResult } from './schema.js';

/**
 * Backend results to the tool's results: plain text (tags and entities removed, whitespace
 * collapsed, capped), http(s) URLs only, one result per URL, at most `limit`. Pure.
 */

/** Longest title kept, in characters. */
export const MAX_TITLE_LENGTH = 200;
/** Longest snippet kept, in characters. */
export const MAX_SNIPPET_LENGTH = 500;
/** Longest URL kept; longer ones are dropped, not cut (a cut URL points elsewhere). */
const MAX_URL_LENGTH = 2048;

/** One result as a backend gave it: strings as they came, maybe with HTML in them. */
export interface Candidate {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
  /** A date as the backend wrote it (`2024-05-01T10:00:00`, `May 1, 2024`). */
  readonly published?: string | undefined;
}

export function normaliseResults(candidates: readonly Candidate[], limit: number): SearchResult[] {
  const out: SearchResult[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (out.length >= limit) break;
    const url = httpUrl(c.url);
    if (url === undefined) continue;
    const key = dedupeKey(url);
    if (seen.has(key)) continue;
    seen.add(key);
    const domain = domainOf(url);
    const published = parsePublished(c.published);
    out.push({
      title: plainText(c.title, MAX_TITLE_LENGTH) || domain,
      url: url.href,
      domain,
      snippet: plainText(c.snippet, MAX_SNIPPET_LENGTH),
      ...(published === undefined ? {} : { published }),
    });
  }
  return out;
}

/** The URL when it is a well-formed http(s) URL of sane length, without user:password. */
function httpUrl(raw: string): URL | undefined {
  const text = raw.trim();
  if (text.length === 0 || text.length > MAX_URL_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname === '') return undefined;
  url.username = '';
  url.password = '';
  return url;
}

/** `https://www.Example.org./a` -> `example.org`. */
function domainOf(url: URL): string {
  return url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
}

/** Two URLs that differ only in fragment, scheme, `www.` or a trailing slash are one page. */
function dedupeKey(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  return `${domainOf(url)}${path}${url.search}`;
}

/** One tag, at the index it is tried at (sticky): `[^<>]*` stops at the next `<` or `>`. */
const TAG_AT = /<\/?([A-Za-z][A-Za-z0-9]*)[^<>]*>/y;
/** Formatting tags some engines escape twice (`&lt;b&gt;`); other decoded `<…>` is text. */
const ESCAPED_FORMATTING = /<\/?(b|strong|em|i|u|mark|span|a|br|p)(\s[^<>]*)?\/?>/gi;
/** Tags inside a run of text: removed without a gap (`<strong>NATS</strong>'s`). */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'code',
  'em',
  'i',
  'mark',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'u',
]);

function dropTag(_tag: string, name: string | undefined): string {
  return name !== undefined && INLINE.has(name.toLowerCase()) ? '' : ' ';
}
const ENTITY = /&(#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g;
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\uFEFF]/g;

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
  times: '×',
  divide: '÷',
};

/**
 * Markup to one line of plain text of at most `max` characters: tags (`<strong>`) and
 * comments removed, entities (`&amp;`, `&#39;`) decoded (then formatting tags that were
 * escaped twice removed too; `&lt;policy&gt;` stays the text `<policy>`), control characters
 * dropped, whitespace collapsed, then cut at a word boundary with `…`.
 */
export function plainText(raw: string, max: number): string {
  const text = dropMarkup(raw)
    .replace(ENTITY, decodeEntity)
    .replace(ESCAPED_FORMATTING, dropTag)
    .replace(CONTROL, '')
    .replace(/\s+/g, ' ')
    .trim();
  return truncate(text, max);
}

/**
 * Tags and comments removed in one pass that reads each character a bounded number of times.
 * (A comment regex, `<!--[\s\S]*?-->`, scans to the end from every `<!--` that is never
 * closed: 12 s for 256 KiB of them, minutes for the 2 MiB a backend may send.) A `<!--` with
 * no `-->` after it stays text, as does every later one: there is no `-->` after them either.
 */
function dropMarkup(text: string): string {
  let out = '';
  let copied = 0;
  let close = text.indexOf('-->');
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) {
    TAG_AT.lastIndex = at;
    const tag = TAG_AT.exec(text);
    let end: number;
    if (tag !== null) {
      end = at + tag[0].length;
      out += text.slice(copied, at) + dropTag(tag[0], tag[1]);
    } else if (close >= 0 && text.startsWith('<!--', at)) {
      if (close < at + 4) close = text.indexOf('-->', at + 4);
      if (close < 0) continue;
      end = close + 3;
      out += `${text.slice(copied, at)} `;
    } else continue;
    copied = end;
    at = end - 1;
  }
  return out + text.slice(copied);
}

function decodeEntity(whole: string, body: string): string {
  if (body.startsWith('#')) {
    const hex = body[1] === 'x' || body[1] === 'X';
    const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : ' ';
  }
  return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? whole;
}

/** Cuts by code points (never halves a surrogate pair), preferring the last word boundary. */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  const cut = space >= head.length * 0.6 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}

/** A date as backends write it, as ISO 8601; undefined when it cannot be read. */
export function parsePublished(raw: string | undefined): string | undefined {
  const text = raw?.trim();
  if (!text || text.length > 64) return undefined;
  const ms = Date.parse(asUtc(text));
  if (!Number.isFinite(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1900 || ms > Date.now() + 2 * 86_400_000) return undefined;
  return new Date(ms).toISOString();
}

const ISO_DATE_TIME_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2}|\b(GMT|UTC))$/i;

/**
 * Reads a date without a zone as UTC, so the answer does not depend on the worker host's
 * time zone: `2024-05-01T10:00:00` (SearXNG, Brave `page_age`), `May 1, 2024` (Brave `age`).
 * A plain `2024-05-01` is UTC already.
 */
function asUtc(text: string): string {
  if (ISO_DATE_TIME_WITHOUT_ZONE.test(text)) return `${text.replace(' ', 'T')}Z`;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) || HAS_ZONE.test(text)) return text;
  return /[A-Za-z]{3}/.test(text) ? `${text} UTC` : text;
}
