/**
 * The matcher: a compiled sentence is a list of items over the message's words, walked by
 * dynamic programming. `reach[i]` holds every word position items 0..i-1 can end at, so a
 * sentence of m items is matched against n words in O(m * n * alternatives) steps, with no
 * backtracking whatever the input. The split is then read backwards: literal parts take as
 * many words as they can, later free-text slots as few, so earlier ones take the rest.
 */

/** One alternative of a phrase item: its words (lowercase) and, for slots, the spoken text. */
export interface Phrase {
  readonly words: readonly string[];
  readonly spoken: string;
}

/** A step of a compiled sentence. */
export type Item =
  /** Literal words or a closed slot (enum, date_range): one of `alts`; `[]` matches nothing. */
  | { readonly kind: 'phrase'; readonly alts: readonly Phrase[]; readonly slot?: string }
  /** A number slot: one word `accept` turns into a number. */
  | {
      readonly kind: 'number';
      readonly slot: string;
      readonly accept: (word: string) => number | undefined;
    }
  /** A free-text slot: 1..maxWords words. */
  | { readonly kind: 'open'; readonly slot: string; readonly maxWords: number };

/** What one slot item captured. */
export type Capture =
  | { readonly kind: 'phrase'; readonly slot: string; readonly spoken: string }
  | {
      readonly kind: 'number';
      readonly slot: string;
      readonly value: number;
      readonly word: string;
    }
  | { readonly kind: 'open'; readonly slot: string; readonly text: string };

/** A message split into words, with the offsets of each in the message. */
export interface Words {
  readonly text: string;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  /** Lowercase, `’` as `'`, without trailing `,;:`: what literal words compare with. */
  readonly keys: readonly string[];
}

/** Longest message considered, in characters: a longer one matches nothing. */
export const MAX_MESSAGE_CHARS = 2000;

/** Splits a message into words after dropping trailing blanks and `?`, `.`, `!`. */
export function toWords(message: string): Words | undefined {
  if (message.length > MAX_MESSAGE_CHARS) return undefined;
  let end = message.length;
  while (end > 0 && /[\s?.!]/.test(message[end - 1]!)) end--;
  const text = message.slice(0, end);
  const starts: number[] = [];
  const ends: number[] = [];
  const keys: string[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
    keys.push(wordKey(m[0]));
  }
  return { text, starts, ends, keys };
}

/** A spoken phrase in compared form: words keyed and joined by single spaces. */
export function phraseKey(text: string): string {
  return text.trim().split(/\s+/).map(wordKey).join(' ');
}

/** The form a literal word is compared in (also applied to template words). */
export function wordKey(word: string): string {
  return word
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/[,;:]+$/, '');
}

/** Matches a compiled sentence against the words; the captures in item order, or undefined. */
export function matchItems(items: readonly Item[], words: Words): Capture[] | undefined {
  const n = words.keys.length;
  const reach: Uint8Array[] = [new Uint8Array(n + 1)];
  reach[0]![0] = 1;
  for (let i = 0; i < items.length; i++) {
    const next = step(items[i]!, reach[i]!, words);
    if (next === undefined) return undefined;
    reach.push(next);
  }
  if (reach[items.length]![n] !== 1) return undefined;
  return readBack(items, reach, words);
}

/** Positions reachable after `item`, from the positions in `from`; undefined if none. */
function step(item: Item, from: Uint8Array, words: Words): Uint8Array | undefined {
  const n = words.keys.length;
  const to = new Uint8Array(n + 1);
  let any = false;
  if (item.kind === 'open') {
    let last = -1;
    for (let j = 1; j <= n; j++) {
      if (from[j - 1] === 1) last = j - 1;
      if (last >= 0 && j - last <= item.maxWords) {
        to[j] = 1;
        any = true;
      }
    }
    return any ? to : undefined;
  }
  for (let j = 0; j <= n; j++) {
    if (from[j] !== 1) continue;
    if (item.kind === 'number') {
      const key = words.keys[j];
      if (key !== undefined && item.accept(key) !== undefined) {
        to[j + 1] = 1;
        any = true;
      }
      continue;
    }
    for (const alt of item.alts) {
      if (matchesAt(alt.words, words.keys, j)) {
        to[j + alt.words.length] = 1;
        any = true;
      }
    }
  }
  return any ? to : undefined;
}

function matchesAt(phrase: readonly string[], keys: readonly string[], at: number): boolean {
  if (at + phrase.length > keys.length) return false;
  for (let k = 0; k < phrase.length; k++) if (keys[at + k] !== phrase[k]) return false;
  return true;
}

/** Picks one split, from the end: phrases longest first, free text as short as it can be. */
function readBack(items: readonly Item[], reach: readonly Uint8Array[], words: Words): Capture[] {
  const captures: Capture[] = [];
  let end = words.keys.length;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    const before = reach[i]!;
    if (item.kind === 'open') {
      let start = end - 1;
      while (start > 0 && before[start] !== 1) start--;
      const text = words.text.slice(words.starts[start], words.ends[end - 1]);
      captures.push({ kind: 'open', slot: item.slot, text });
      end = start;
    } else if (item.kind === 'number') {
      const key = words.keys[end - 1]!;
      captures.push({ kind: 'number', slot: item.slot, value: item.accept(key)!, word: key });
      end -= 1;
    } else {
      const alt = longestEndingAt(item.alts, before, words.keys, end)!;
      if (item.slot !== undefined) {
        captures.push({ kind: 'phrase', slot: item.slot, spoken: alt.spoken });
      }
      end -= alt.words.length;
    }
  }
  return captures.reverse();
}

function longestEndingAt(
  alts: readonly Phrase[],
  before: Uint8Array,
  keys: readonly string[],
  end: number,
): Phrase | undefined {
  let best: Phrase | undefined;
  for (const alt of alts) {
    const start = end - alt.words.length;
    if (start < 0 || before[start] !== 1 || !matchesAt(alt.words, keys, start)) continue;
    if (best === undefined || alt.words.length > best.words.length) best = alt;
  }
  return best;
}
