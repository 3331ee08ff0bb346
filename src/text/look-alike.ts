/**
 * Text as a reader takes it in, whatever code points it is written with: what a person sees
 * on screen, and what a language model reads. Text from outside (a web page, a calendar
 * invite, an entity's name) can hide words from a filter that compares code points while
 * they stay readable: fullwidth or mathematical letters, Cyrillic and Greek letters drawn
 * like Latin ones, invisible characters inside a word. The brain uses this reading to find
 * the words of an injected instruction (the excerpt of a held call, ADR 0065), never to
 * decide what is allowed.
 */

/**
 * Cyrillic and Greek letters drawn like Latin ones (pairs from Unicode's confusables list,
 * UTS #39): the letters an attacker swaps into a Latin word unseen.
 */
export const LOOK_ALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  У: 'Y',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  ı: 'i',
};

/** Invisible format characters: zero-width, soft hyphen, bidi controls. */
const FORMAT_RE = /^\p{Cf}$/u;
/** Tag characters U+E0020-U+E007E: invisible, each the ASCII character 0xE0000 below it. */
const TAG_FIRST = 0xe0020;
const TAG_LAST = 0xe007e;

/** A text as read, and where each of its UTF-16 units came from in the text as written. */
interface Reading {
  readonly text: string;
  /** `at[i]`: the index, in the text as written, of the character that gave unit `i`. */
  readonly at: readonly number[];
}

/**
 * How `text` reads: compatibility forms folded (NFKC: fullwidth and mathematical letters,
 * ligatures), Cyrillic and Greek look-alikes read as the Latin letter, tag characters as the
 * ASCII they smuggle (a screen shows nothing, a language model reads them), other invisible
 * format characters dropped. Case is kept. One pass, linear in the text's length.
 */
export function readingOf(text: string): Reading {
  let out = '';
  const at: number[] = [];
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i)!;
    const ch = String.fromCodePoint(code);
    if (code >= TAG_FIRST && code <= TAG_LAST) {
      out += String.fromCharCode(code - 0xe0000);
      at.push(i);
    } else if (!FORMAT_RE.test(ch)) {
      for (const c of ch.normalize('NFKC')) {
        const read = LOOK_ALIKES[c] ?? c;
        out += read;
        for (let u = 0; u < read.length; u++) at.push(i);
      }
    }
    i += ch.length;
  }
  return { text: out, at };
}
