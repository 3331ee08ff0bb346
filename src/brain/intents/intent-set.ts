import type { CompiledIntent } from './compile-intent.js';
import { isTimeZone } from '../../clock/index.js';
import { IntentsError } from './errors.js';
import { ENTITY_LOOKUP_TOOL, lookupsFor, readLookup, type IntentLookup } from './entity.js';
import { renderInput } from './input-template.js';
import { matchItems, toWords, type Item, type Words } from './matcher.js';
import { renderReply, type IntentOutcome } from './reply.js';
import { defaultSlot, fillSlot, type SlotContext, type SlotValue } from './slots.js';

/** When `match` is asked: the moment and the IANA zone "today" and "this week" are read in. */
export interface MatchContext {
  readonly now: Date;
  /** An IANA time zone name, such as `Europe/Berlin`. */
  readonly timeZone: string;
}

/** A message a rule matched: the tool to call, its input, and how to word the reply. */
export interface IntentMatch {
  readonly intent: string;
  readonly tool: string;
  /** The sentence template that matched, as written in the file. */
  readonly sentence: string;
  /**
   * The tool input built from the rule's `input:` template; not yet validated or allowed.
   * Undefined while `lookups` remain: an entity slot is not known yet.
   */
  readonly input: unknown;
  readonly slots: Readonly<Record<string, SlotValue>>;
  /**
   * Calls to make first, in order: one `ha_entities` lookup per entity slot ("the kitchen"
   * -> `light.kitchen`). Empty when the input is complete.
   */
  readonly lookups: readonly IntentLookup[];
  /**
   * Fills the entity slots from the lookups' outcomes (in `lookups` order): the complete
   * match, or the reply that ends the turn (a lookup failed, the name is ambiguous or
   * unknown). Never throws.
   */
  resolve(outcomes: readonly IntentOutcome[]): IntentMatch | { readonly reply: string };
  /** The reply for the call's outcome. Never throws; capped at MAX_REPLY_CHARS. */
  render(outcome: IntentOutcome): string;
}

/** What one rule can do, for help text. */
interface IntentSummary {
  readonly name: string;
  readonly tool: string;
  readonly description: string | undefined;
  readonly example: string | undefined;
}

/** A compiled intents file. Immutable; `match` is synchronous, offline and bounded. */
export class IntentSet {
  /** The file it was compiled from (as named to parseIntents or loadIntents). */
  readonly file: string;
  /** The rules in file order. */
  readonly intents: readonly IntentSummary[];
  readonly #intents: readonly CompiledIntent[];

  /** Use parseIntents or loadIntents. */
  constructor(file: string, intents: readonly CompiledIntent[]) {
    this.file = file;
    this.#intents = intents;
    this.intents = Object.freeze(
      intents.map(({ name, tool, description, example }) =>
        Object.freeze({ name, tool, description, example }),
      ),
    );
  }

  /**
   * The first rule (in file order, then sentence order) that matches the whole message, or
   * undefined. Messages longer than MAX_MESSAGE_CHARS match nothing. Throws IntentsError
   * `intents_bad_context` only when `ctx` is wrong (an invalid date or unknown time zone),
   * never because of the message.
   */
  match(message: string, ctx: MatchContext): IntentMatch | undefined {
    checkContext(ctx);
    if (typeof message !== 'string') return undefined;
    const words = toWords(message);
    if (words === undefined || words.keys.length === 0) return undefined;
    for (const intent of this.#intents) {
      for (const sentence of intent.sentences) {
        for (const items of sentence.variants) {
          const slots = fill(intent, items, words, ctx);
          if (slots !== undefined) return matched(intent, sentence.text, slots);
        }
      }
    }
    return undefined;
  }

  /**
   * What the rules can do, one line each, for when nothing matched and no LLM is configured:
   * `do arithmetic (e.g. 'what is 17 * 23')`. Rules with the same description are listed
   * once; a rule without one reads `use <tool>`. Empty when the file has no rules.
   */
  describe(): string[] {
    return this.capabilities().map((c) => line(c.what, c.example));
  }

  /**
   * What the rules can do, each description once (a rule without one reads `use <tool>`),
   * with the first example given for it and every tool its rules call: the rule's own and
   * the lookups an entity slot makes first (`ha_entities`), so a reply can list only what
   * works.
   */
  capabilities(): IntentCapability[] {
    const byWhat = new Map<string, { what: string; example?: string; tools: Set<string> }>();
    for (const intent of this.#intents) {
      const key = intent.description ?? `use ${intent.tool}`;
      const entry = byWhat.get(key) ?? { what: key, tools: new Set<string>() };
      if (entry.example === undefined && intent.example !== undefined) {
        entry.example = intent.example;
      }
      entry.tools.add(intent.tool);
      for (const spec of intent.slots.values()) {
        if (spec.type === 'entity') entry.tools.add(ENTITY_LOOKUP_TOOL);
      }
      byWhat.set(key, entry);
    }
    return [...byWhat.values()].map(({ what, example, tools }) => ({
      what,
      ...(example === undefined ? {} : { example }),
      tools: [...tools],
    }));
  }
}

/** One thing the rules can do, and the tools it needs. */
export interface IntentCapability {
  /** `do arithmetic`: the rules' description. */
  readonly what: string;
  /** `what is 17 * 23`: the first example one of its rules gives. */
  readonly example?: string;
  /** The tools its rules call, lookups included, in first-use order. */
  readonly tools: readonly string[];
}

function line(what: string, example: string | undefined): string {
  return example === undefined ? what : `${what} (e.g. '${example}')`;
}

function checkContext(ctx: MatchContext): void {
  const now: unknown = ctx?.now;
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new IntentsError('intents_bad_context', 'now', 'a valid Date');
  }
  if (typeof ctx.timeZone !== 'string' || !isTimeZone(ctx.timeZone)) {
    const got = JSON.stringify(ctx.timeZone);
    throw new IntentsError('intents_bad_context', 'timeZone', `an IANA time zone name; got ${got}`);
  }
}

/** The slots of one reading, or undefined when it does not match or a slot check fails. */
function fill(
  intent: CompiledIntent,
  items: readonly Item[],
  words: Words,
  ctx: SlotContext,
): Record<string, SlotValue> | undefined {
  const captures = matchItems(items, words);
  if (captures === undefined) return undefined;
  const slots: Record<string, SlotValue> = {};
  for (const capture of captures) {
    const spec = intent.slots.get(capture.slot);
    const value = spec && fillSlot(spec, capture, ctx);
    if (value === undefined) return undefined;
    slots[capture.slot] = value;
  }
  for (const [name, spec] of intent.slots) {
    if (Object.hasOwn(slots, name)) continue;
    const value = defaultSlot(spec, ctx);
    if (value === undefined) return undefined;
    slots[name] = value;
  }
  return slots;
}

function matched(
  intent: CompiledIntent,
  sentence: string,
  slots: Record<string, SlotValue>,
): IntentMatch {
  const frozen = Object.freeze(slots);
  const facts = { intent: intent.name, tool: intent.tool, slots: frozen };
  const lookups = Object.freeze(lookupsFor(frozen));
  const match: IntentMatch = Object.freeze({
    intent: intent.name,
    tool: intent.tool,
    sentence,
    input: lookups.length === 0 ? renderInput(intent.input, { slots: frozen }) : undefined,
    slots: frozen,
    lookups,
    resolve: (outcomes: readonly IntentOutcome[]) => {
      const filled: Record<string, SlotValue> = { ...frozen };
      for (const [i, lookup] of lookups.entries()) {
        const slot = frozen[lookup.slot];
        if (slot?.type !== 'entity') continue;
        const read = readLookup(slot, outcomes[i]);
        if (!read.ok) return { reply: read.reply };
        filled[lookup.slot] = read.value;
      }
      return lookups.length === 0 ? match : matched(intent, sentence, filled);
    },
    render: (outcome: IntentOutcome) => renderReply(intent.replies, facts, outcome),
  });
  return match;
}
