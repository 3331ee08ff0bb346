import type { FlowContext } from '../../policy/index.js';
import type { ToolSpec } from '../../protocol/index.js';
import { specEffects, specOutputTrust } from '../../protocol/index.js';
import { isRecord, readingOf, terminalLine } from '../../text/index.js';

/**
 * Where the idea for a call came from, and what a model had read before it asked (ADR 0065).
 * Content that enters a turn carries a label: the operator's own words are trusted; a tool's
 * result is what its spec says (`output_trust`, `reads_private`). The agent loop keeps the
 * labels on the conversation's tool records; the gateway turns the labels a model had read
 * into the policy's flow context, the audit row's provenance and a confirmation's account
 * of what the model read.
 */

export type Trust = 'trusted' | 'untrusted';

/** What one tool result is, as stored on its conversation record. */
export interface ContentLabel {
  readonly trust: Trust;
  readonly private: boolean;
  /** Where it came from, when the result says: URLs, calendars, entity ids (at most 8). */
  readonly sources?: string[];
}

/** One tool result in a model's context when it asked for a call. */
export interface ReadItem {
  readonly tool: string;
  readonly decisionId: string;
  readonly label: ContentLabel;
  /** The strings the result (or its error) holds, read lazily: excerpts, private words. */
  readonly texts: () => readonly string[];
}

/** Who asked for a call. */
export type CallOrigin =
  /** A token's own request (`POST /v1/tools/{name}/invoke`): no model in between. */
  | { readonly kind: 'api' }
  /** A local intent rule, matched on the operator's own words. */
  | { readonly kind: 'intent'; readonly intent: string }
  /**
   * A model, in a turn opened by the caller: `read` is every tool result in the context it
   * planned from (for a plan made before any result: the results its values were filled
   * from); `turnCounts` counts the turn's calls per rule for per-turn rate limits.
   */
  | {
      readonly kind: 'model';
      readonly read: readonly ReadItem[];
      readonly turnCounts: Map<string, number>;
    };

export const API_ORIGIN: CallOrigin = Object.freeze({ kind: 'api' });

/** A tool whose spec the brain does not know: the most cautious label. */
export const UNKNOWN_LABEL: ContentLabel = Object.freeze({ trust: 'untrusted', private: true });

/** A result the brain made itself (a refusal, a cap): local state, trusted, not private. */
export const LOCAL_LABEL: ContentLabel = Object.freeze({ trust: 'trusted', private: false });

const MAX_SOURCES = 8;
const MAX_SOURCE_CHARS = 200;
const MAX_TEXTS = 256;
const MAX_TEXT_CHARS = 64 * 1024;
const MAX_WALK_DEPTH = 8;
/** Keys whose string values name where a result came from. */
const SOURCE_KEYS: ReadonlySet<string> = new Set(['url', 'entity_id', 'calendar']);

/** The label of `tool`'s result, from its spec (null: unknown tool) and the result itself. */
export function labelOf(
  spec: Pick<
    ToolSpec,
    'annotations' | 'output_trust' | 'reads_private' | 'resource_requirements'
  > | null,
  payload: unknown,
): ContentLabel {
  const base =
    spec === null
      ? UNKNOWN_LABEL
      : { trust: specOutputTrust(spec), private: spec.reads_private === true };
  const sources = sourcesOf(payload);
  return sources.length === 0 ? base : { ...base, sources };
}

/** The URLs, calendars and entity ids a result names, in order, each once (at most 8). */
export function sourcesOf(value: unknown): string[] {
  const out = new Set<string>();
  walk(value, 0, (key, v) => {
    if (key !== undefined && SOURCE_KEYS.has(key) && typeof v === 'string' && v !== '') {
      out.add(v.slice(0, MAX_SOURCE_CHARS));
    }
    return out.size < MAX_SOURCES;
  });
  return [...out];
}

/** Every string a value holds (keys not included), bounded in count and length. */
export function textsOf(value: unknown): string[] {
  const out: string[] = [];
  let chars = 0;
  walk(value, 0, (_key, v) => {
    if (typeof v !== 'string' || v === '') return true;
    const room = MAX_TEXT_CHARS - chars;
    const text = v.length > room ? v.slice(0, room) : v;
    out.push(text);
    chars += text.length;
    return out.length < MAX_TEXTS && chars < MAX_TEXT_CHARS;
  });
  return out;
}

/** Depth-first over objects and arrays; `visit` returns false to stop. */
function walk(
  value: unknown,
  depth: number,
  visit: (key: string | undefined, v: unknown) => boolean,
  key?: string,
): boolean {
  if (!visit(key, value)) return false;
  if (depth >= MAX_WALK_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!walk(item, depth + 1, visit, key)) return false;
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) if (!walk(v, depth + 1, visit, k)) return false;
  }
  return true;
}

/**
 * The policy's flow context for a model's call; undefined for a call no model asked for.
 * `sharesPrivateWords` is worked out only when it can matter (an open-world call after
 * private content).
 */
export function flowContextOf(
  origin: CallOrigin,
  tool: string,
  spec: Pick<ToolSpec, 'annotations'> | null,
  input: unknown,
): FlowContext | undefined {
  if (origin.kind !== 'model') return undefined;
  const { changesState, openWorld } = specEffects(tool, spec ?? undefined);
  const afterUntrusted = origin.read.some((r) => r.label.trust === 'untrusted');
  const afterPrivate = origin.read.some((r) => r.label.private);
  const sharesPrivateWords =
    afterPrivate && openWorld && sharesWords(input, privateWordsOf(origin.read));
  return {
    afterUntrusted,
    afterPrivate,
    changesState,
    openWorld,
    sharesPrivateWords,
    turnCounts: origin.turnCounts,
  };
}

/** Words of 4 or more letters or digits, lowercased. */
const WORD_RE = /[\p{L}\p{N}]{4,}/gu;

function wordsOf(text: string, into: Set<string>): void {
  for (const m of text.toLowerCase().matchAll(WORD_RE)) into.add(m[0]);
}

/** The words of every private result read. */
export function privateWordsOf(read: readonly ReadItem[]): Set<string> {
  const words = new Set<string>();
  for (const item of read) {
    if (!item.label.private) continue;
    for (const text of item.texts()) wordsOf(text, words);
  }
  return words;
}

/** Whether any string in `input` holds one of `words`. */
export function sharesWords(input: unknown, words: ReadonlySet<string>): boolean {
  if (words.size === 0) return false;
  for (const text of textsOf(input)) {
    for (const m of text.toLowerCase().matchAll(WORD_RE)) if (words.has(m[0])) return true;
  }
  return false;
}

/** One result a model had read, as a confirmation and the audit row show it. */
export interface ReadView {
  readonly tool: string;
  readonly decision_id: string;
  readonly trust: Trust;
  readonly private: boolean;
  readonly sources: readonly string[];
}

/** At most this many read results are named in an audit row or a confirmation. */
const MAX_READ_SHOWN = 16;

/** What the model had read that matters to a flow rule: the untrusted and private results. */
export function readViews(read: readonly ReadItem[]): ReadView[] {
  return read
    .filter((r) => r.label.trust === 'untrusted' || r.label.private)
    .slice(-MAX_READ_SHOWN)
    .map((r) => ({
      tool: r.tool,
      decision_id: r.decisionId,
      trust: r.label.trust,
      private: r.label.private,
      sources: [...(r.label.sources ?? [])],
    }));
}

/** The provenance an audit row of a call carries. */
export type AuditProvenance =
  | { readonly asked_by: 'api' }
  | { readonly asked_by: 'intent'; readonly intent: string }
  | { readonly asked_by: 'model'; readonly read: ReadView[] };

/** The provenance an audit row of the call carries. */
export function auditProvenance(origin: CallOrigin): AuditProvenance {
  if (origin.kind === 'api') return { asked_by: 'api' };
  if (origin.kind === 'intent') return { asked_by: 'intent', intent: origin.intent };
  return { asked_by: 'model', read: readViews(origin.read) };
}

const EXCERPT_CHARS = 240;
/** Words an instruction aimed at an assistant tends to use. */
const SUSPECT_RE =
  /\b(ignore|instruction|instructions|system|assistant|call|calls|tool|unlock|open|turn|send|search|previous|override|now)\b/giu;
/** A run of invisible format characters: in text from outside, there to hide something. */
const INVISIBLE_RE = /\p{Cf}+/gu;
/** Text under a right-to-left override, which a screen shows (and a model may read) reversed. */
const OVERRIDDEN_RE = /\u202e([^\u202c\u2069\n]*)/gu;

/**
 * A short excerpt of what a model read, chosen to show an injected instruction when there
 * is one: the string that names the call (its tool, its words, its entity ids), uses an
 * instruction's words or hides something with invisible characters the most, read as a
 * reader sees it (look-alike and compatibility letters folded, invisible characters
 * skipped, reversed text read reversed), cut around its first hit; control and invisible
 * format characters escaped (`\\u200b`).
 */
export function excerptFor(item: ReadItem, call: { tool: string; input: unknown }): string {
  const texts = item.texts();
  if (texts.length === 0) return '';
  const callWords = new Set<string>([call.tool.toLowerCase()]);
  for (const t of textsOf(call.input)) wordsOf(readingOf(t).text, callWords);
  let best = texts[0]!;
  let bestScore = -1;
  let bestAt = 0;
  for (const text of texts) {
    const { score, at } = suspicion(text, callWords);
    if (score > bestScore) [best, bestScore, bestAt] = [text, score, at];
  }
  const start = codePointStart(best, Math.max(0, bestAt - 60));
  const end = codePointStart(best, start + EXCERPT_CHARS);
  const cut = best.slice(start, end);
  const excerpt = (start > 0 ? '…' : '') + cut + (end < best.length ? '…' : '');
  // invisible format characters (zero-width, tags that smuggle ASCII) shown, not hidden
  return terminalLine(excerpt).replace(/\p{Cf}/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** `i`, or `i - 1` when `i` falls between the halves of a surrogate pair. */
function codePointStart(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return i > 0 && code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}

/**
 * How much `text` looks like an instruction for this call: 3 for each of the call's words
 * (and each run of invisible characters), 1 for each instruction word; `at` is where the
 * first of the call's words is, else the first other hit.
 */
function suspicion(text: string, callWords: ReadonlySet<string>): { score: number; at: number } {
  const reading = readingOf(text);
  let score = 0;
  let wordAt = -1;
  let otherAt = -1;
  for (const m of reading.text.matchAll(WORD_RE)) {
    if (!callWords.has(m[0].toLowerCase())) continue;
    score += 3;
    if (wordAt < 0) wordAt = reading.at[m.index]!;
  }
  for (const m of text.matchAll(OVERRIDDEN_RE)) {
    const reversed = readingOf([...m[1]!].reverse().join('')).text;
    for (const w of reversed.matchAll(WORD_RE)) {
      if (!callWords.has(w[0].toLowerCase())) continue;
      score += 3;
      if (wordAt < 0) wordAt = m.index;
    }
  }
  for (const m of reading.text.matchAll(SUSPECT_RE)) {
    score += 1;
    if (otherAt < 0) otherAt = reading.at[m.index]!;
  }
  for (const m of text.matchAll(INVISIBLE_RE)) {
    score += 3;
    if (otherAt < 0 || m.index < otherAt) otherAt = m.index;
  }
  return { score, at: Math.max(0, wordAt >= 0 ? wordAt : otherAt) };
}
