/**
 * Sentence templates: `what is {expression}`, `turn {state} [the] {name} (light|lights)`.
 * Literal words, `[optional parts]`, `(alternative|parts)` and `{slot}` captures. Every part
 * is a whole word: `light(s)` is refused (write `(light|lights)`), so a template compiles to a
 * sequence of whole-word items the matcher walks without backtracking (see matcher.ts).
 */

/** A parsed template node. */
export type SentenceNode =
  | { readonly kind: 'word'; readonly text: string }
  | { readonly kind: 'slot'; readonly name: string }
  | {
      readonly kind: 'group';
      readonly optional: boolean;
      readonly alternatives: readonly (readonly SentenceNode[])[];
    };

/** Longest sentence template, in characters. */
const MAX_SENTENCE_CHARS = 500;
/** Deepest nesting of `[...]` and `(...)` groups. */
const MAX_GROUP_DEPTH = 4;

/** A sentence template that does not follow the grammar; the message says where. */
export class SentenceSyntaxError extends Error {
  override name = 'SentenceSyntaxError';
}

const SLOT_NAME_RE = /^[a-z][a-z0-9_]{0,31}$/;
const SPECIAL = new Set(['[', ']', '(', ')', '{', '}', '|']);
const OPENERS: Readonly<Record<string, string>> = { '[': ']', '(': ')' };

/** Parses a sentence template. Throws SentenceSyntaxError naming the offending character. */
export function parseSentence(text: string): readonly SentenceNode[] {
  if (text.length > MAX_SENTENCE_CHARS) {
    throw new SentenceSyntaxError(`sentence is longer than ${MAX_SENTENCE_CHARS} characters`);
  }
  const parser = new Parser(text);
  const seq = parser.sequence(0, undefined);
  if (seq.length === 0) throw new SentenceSyntaxError('sentence has no words');
  return seq;
}

class Parser {
  private i = 0;
  constructor(private readonly text: string) {}

  /** Parses items up to `close` (a group's closing bracket or `|`), or the end of the text. */
  sequence(depth: number, close: string | undefined): SentenceNode[] {
    const items: SentenceNode[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.text[this.i];
      if (c === undefined) {
        if (close !== undefined) throw this.error(`missing '${close}'`);
        return items;
      }
      if (c === '|' || c === close) return items;
      if (c === ']' || c === ')' || c === '}') throw this.error(`unexpected '${c}'`);
      items.push(this.item(depth));
      this.checkWordEnd();
    }
  }

  private item(depth: number): SentenceNode {
    const c = this.text[this.i]!;
    if (c === '{') return this.slot();
    const closer = OPENERS[c];
    if (closer !== undefined) return this.group(depth + 1, c === '[', closer);
    const start = this.i;
    while (this.i < this.text.length && !isBoundary(this.text[this.i]!)) this.i++;
    return { kind: 'word', text: this.text.slice(start, this.i) };
  }

  private slot(): SentenceNode {
    const end = this.text.indexOf('}', this.i);
    if (end < 0) throw this.error("missing '}'");
    const name = this.text.slice(this.i + 1, end).trim();
    if (!SLOT_NAME_RE.test(name)) {
      throw this.error(`bad slot name {${name}} (expected lowercase letters, digits and _)`);
    }
    this.i = end + 1;
    return { kind: 'slot', name };
  }

  private group(depth: number, optional: boolean, closer: string): SentenceNode {
    if (depth > MAX_GROUP_DEPTH) throw this.error(`groups nest deeper than ${MAX_GROUP_DEPTH}`);
    this.i++;
    const alternatives: SentenceNode[][] = [];
    for (;;) {
      const seq = this.sequence(depth, closer);
      if (seq.length === 0) {
        throw this.error(
          optional ? 'empty alternative in [...]' : 'empty alternative: write [a] for optional a',
        );
      }
      alternatives.push(seq);
      const c = this.text[this.i];
      this.i++;
      if (c === closer) return { kind: 'group', optional, alternatives };
    }
  }

  /** After a part, only a space, `|` or a closing bracket may follow. */
  private checkWordEnd(): void {
    const c = this.text[this.i];
    if (c === undefined || /\s/.test(c) || c === '|' || c === ']' || c === ')') return;
    if (c === '}') throw this.error("unexpected '}'");
    throw this.error(
      `'${c}' must follow a space: every part is a whole word (write (light|lights), not light(s))`,
    );
  }

  private skipSpace(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i]!)) this.i++;
  }

  private error(message: string): SentenceSyntaxError {
    return new SentenceSyntaxError(`${message} at character ${this.i + 1}`);
  }
}

function isBoundary(c: string): boolean {
  return SPECIAL.has(c) || /\s/.test(c);
}
