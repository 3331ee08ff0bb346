import { DATE_PHRASES } from './dates.js';
import { phraseKey, wordKey, type Item, type Phrase } from './matcher.js';
import type { SlotSpec } from './schema.js';
import { parseSentence, SentenceSyntaxError, type SentenceNode } from './sentence.js';

/** Most readings one sentence expands to (groups holding slots multiply them). */
const MAX_VARIANTS = 64;
/** Most alternatives one literal group expands to. */
const MAX_ALTERNATIVES = 64;
/** Free-text slots take any number of words unless they set `max_words`. */
const UNLIMITED_WORDS = Number.MAX_SAFE_INTEGER;

/** A sentence compiled to its readings (each a list of items) or the problems found. */
type CompiledSentence =
  | { readonly ok: true; readonly variants: readonly (readonly Item[])[] }
  | { readonly ok: false; readonly problems: readonly string[] };

class CompileProblem extends Error {}

/** Parses and checks one sentence against the intent's slots. */
export function compileSentence(
  text: string,
  slots: ReadonlyMap<string, SlotSpec>,
): CompiledSentence {
  try {
    const variants = expandSequence(parseSentence(text), slots);
    const problems = new Set<string>();
    for (const items of variants) for (const p of checkVariant(items, slots)) problems.add(p);
    return problems.size === 0 ? { ok: true, variants } : { ok: false, problems: [...problems] };
  } catch (err) {
    if (err instanceof SentenceSyntaxError || err instanceof CompileProblem) {
      return { ok: false, problems: [err.message] };
    }
    throw err;
  }
}

/** Slot names a sentence mentions; undefined when it does not parse (compileSentence says why). */
export function slotsOf(text: string): Set<string> | undefined {
  const names = new Set<string>();
  const walk = (nodes: readonly SentenceNode[]): void => {
    for (const node of nodes) {
      if (node.kind === 'slot') names.add(node.name);
      else if (node.kind === 'group') node.alternatives.forEach(walk);
    }
  };
  try {
    walk(parseSentence(text));
  } catch {
    return undefined;
  }
  return names;
}

function expandSequence(
  nodes: readonly SentenceNode[],
  slots: ReadonlyMap<string, SlotSpec>,
): Item[][] {
  let variants: Item[][] = [[]];
  for (const node of nodes) {
    const options = expandNode(node, slots);
    if (variants.length * options.length > MAX_VARIANTS) {
      throw new CompileProblem(
        `sentence has more than ${MAX_VARIANTS} readings: split it into several sentences`,
      );
    }
    variants = variants.flatMap((head) => options.map((tail) => [...head, ...tail]));
  }
  return variants;
}

function expandNode(node: SentenceNode, slots: ReadonlyMap<string, SlotSpec>): Item[][] {
  if (node.kind === 'word') return [[literal([[wordKey(node.text)]])]];
  if (node.kind === 'slot') return [[slotItem(node.name, slots)]];
  if (!hasSlot(node)) return [[literal(wordsOf(node))]];
  const variants = node.alternatives.flatMap((alt) => expandSequence(alt, slots));
  return node.optional ? [...variants, []] : variants;
}

function literal(alternatives: readonly (readonly string[])[]): Item {
  return { kind: 'phrase', alts: alternatives.map((words) => ({ words, spoken: '' })) };
}

/** Every word sequence a slot-free group can stand for (`[]` when it is optional). */
function wordsOf(node: SentenceNode): string[][] {
  if (node.kind === 'word') return [[wordKey(node.text)]];
  if (node.kind === 'slot') return [];
  const out: string[][] = [];
  for (const alt of node.alternatives) {
    let seqs: string[][] = [[]];
    for (const child of alt) {
      const tails = wordsOf(child);
      if (seqs.length * tails.length > MAX_ALTERNATIVES) throw tooManyAlternatives();
      seqs = seqs.flatMap((head) => tails.map((tail) => [...head, ...tail]));
    }
    out.push(...seqs);
  }
  if (node.optional) out.push([]);
  if (out.length > MAX_ALTERNATIVES) throw tooManyAlternatives();
  return out;
}

function tooManyAlternatives(): CompileProblem {
  return new CompileProblem(
    `a group has more than ${MAX_ALTERNATIVES} alternatives: split the sentence`,
  );
}

function hasSlot(node: SentenceNode): boolean {
  if (node.kind === 'slot') return true;
  return node.kind === 'group' && node.alternatives.some((alt) => alt.some(hasSlot));
}

function slotItem(name: string, slots: ReadonlyMap<string, SlotSpec>): Item {
  const spec = slots.get(name);
  if (spec === undefined) {
    const known = [...slots.keys()].map((k) => `{${k}}`).join(', ');
    throw new CompileProblem(`unknown slot {${name}}${known ? ` (defined: ${known})` : ''}`);
  }
  switch (spec.type) {
    case 'text':
    case 'entity':
      return { kind: 'open', slot: name, maxWords: spec.max_words ?? UNLIMITED_WORDS };
    case 'expression':
      return { kind: 'open', slot: name, maxWords: UNLIMITED_WORDS };
    case 'number':
      return { kind: 'number', slot: name, accept: numberAcceptor(spec) };
    case 'enum':
      return { kind: 'phrase', slot: name, alts: phrases(Object.keys(spec.values)) };
    case 'date_range':
      return { kind: 'phrase', slot: name, alts: phrases(DATE_PHRASES) };
  }
}

function phrases(spoken: readonly string[]): Phrase[] {
  return spoken.map((s) => {
    const key = phraseKey(s);
    return { words: key.split(' '), spoken: key };
  });
}

const NUMBER_RE = /^[+-]?(?:\d{1,15}(?:\.\d{1,15})?|\.\d{1,15})%?$/;

/** A number slot takes one word such as `50`, `-2.5` or `30%` within its bounds. */
function numberAcceptor(
  spec: Extract<SlotSpec, { type: 'number' }>,
): (word: string) => number | undefined {
  return (word) => {
    if (!NUMBER_RE.test(word)) return undefined;
    const value = Number(word.replace(/%$/, ''));
    if (spec.integer === true && !Number.isInteger(value)) return undefined;
    if (spec.min !== undefined && value < spec.min) return undefined;
    if (spec.max !== undefined && value > spec.max) return undefined;
    return value;
  };
}

/** The problems of one reading: repeated or adjacent slots, no literal, missing slots. */
function checkVariant(items: readonly Item[], slots: ReadonlyMap<string, SlotSpec>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  let hasLiteral = false;
  let openSlot: string | undefined;
  for (const item of items) {
    const required = item.kind !== 'phrase' || item.alts.every((a) => a.words.length > 0);
    const slot = item.slot;
    if (slot === undefined) {
      if (required) [hasLiteral, openSlot] = [true, undefined];
      continue;
    }
    if (seen.has(slot)) problems.push(`slot {${slot}} appears twice in one reading`);
    seen.add(slot);
    if (item.kind === 'open' && openSlot !== undefined) {
      problems.push(
        `slots {${openSlot}} and {${slot}} are adjacent: put a required word between them`,
      );
    }
    openSlot = item.kind === 'open' ? slot : undefined;
  }
  if (!hasLiteral)
    problems.push('sentence has no required literal word, so it would match too much');
  for (const [name, spec] of slots) {
    const noDefault =
      spec.type === 'expression' || spec.type === 'entity' || spec.default === undefined;
    if (!seen.has(name) && noDefault) {
      problems.push(`sentence can match without slot {${name}}, which has no default`);
    }
  }
  return problems;
}
