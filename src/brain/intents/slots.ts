import { dateRange, type DatePhrase } from './dates.js';
import { recogniseExpression } from './expression.js';
import { phraseKey, type Capture } from './matcher.js';
import type { SlotSpec, SlotType } from './schema.js';

/** A filled slot. `value` is what `{slot}` stands for; `word` is what was said. */
export type SlotValue =
  | { readonly type: 'text'; readonly value: string; readonly word: string }
  /** `value`: the expression in calculator syntax; `word`: as typed ("5 times 3"). */
  | { readonly type: 'expression'; readonly value: string; readonly word: string }
  | { readonly type: 'number'; readonly value: number; readonly word: string }
  /** `value`: the canonical value; `word`: the spoken phrase it was listed under. */
  | { readonly type: 'enum'; readonly value: string | number | boolean; readonly word: string }
  /**
   * `value`: the entity id (`light.kitchen`), `name`: its friendly name, both empty until the
   * name was looked up; `word`: what was said ("kitchen"); `domain`: the slot's domain.
   */
  | {
      readonly type: 'entity';
      readonly value: string;
      readonly word: string;
      readonly name: string;
      readonly domain: string;
    }
  /** `value` and `word`: the phrase ("this week"); `start`/`end`: RFC 3339, `[start, end)`. */
  | {
      readonly type: 'date_range';
      readonly value: string;
      readonly word: string;
      readonly start: string;
      readonly end: string;
    };

/** Properties a placeholder may read from a slot of each type (`{when.start}`). */
export const SLOT_PROPERTIES: Readonly<Record<SlotType, readonly string[]>> = {
  text: ['word'],
  expression: ['word'],
  number: ['word'],
  enum: ['word'],
  date_range: ['word', 'start', 'end'],
  entity: ['word', 'name', 'domain'],
};

/** What `match` needs to fill slots: the moment and the zone "today" is read in. */
export interface SlotContext {
  readonly now: Date;
  readonly timeZone: string;
}

/** The slot a capture fills, or undefined when the capture fails the slot's own checks. */
export function fillSlot(
  spec: SlotSpec,
  capture: Capture,
  ctx: SlotContext,
): SlotValue | undefined {
  if (capture.kind === 'number') {
    return { type: 'number', value: capture.value, word: capture.word };
  }
  if (capture.kind === 'phrase') return spoken(spec, capture.spoken, ctx);
  const text = capture.text.trim();
  if (spec.type === 'expression') {
    const value = recogniseExpression(text);
    return value === undefined ? undefined : { type: 'expression', value, word: text };
  }
  if (spec.type !== 'text' && spec.type !== 'entity') return undefined;
  const key = phraseKey(text);
  if (spec.exclude?.some((x) => phraseKey(x) === key) === true) return undefined;
  if (spec.type === 'entity') {
    return { type: 'entity', value: '', word: text, name: '', domain: spec.domain };
  }
  return { type: 'text', value: text, word: text };
}

/** The value of a slot its sentence did not mention: its `default`, as if it were said. */
export function defaultSlot(spec: SlotSpec, ctx: SlotContext): SlotValue | undefined {
  if (spec.type === 'expression' || spec.type === 'entity' || spec.default === undefined) {
    return undefined;
  }
  if (spec.type === 'number') {
    return { type: 'number', value: spec.default, word: String(spec.default) };
  }
  if (spec.type === 'text') return { type: 'text', value: spec.default, word: spec.default };
  return spoken(spec, phraseKey(spec.default), ctx);
}

function spoken(spec: SlotSpec, phrase: string, ctx: SlotContext): SlotValue | undefined {
  if (spec.type === 'date_range') {
    const range = dateRange(phrase as DatePhrase, ctx.now, ctx.timeZone);
    return { type: 'date_range', value: phrase, word: phrase, ...range };
  }
  if (spec.type !== 'enum') return undefined;
  for (const [key, value] of Object.entries(spec.values)) {
    if (phraseKey(key) === phrase) return { type: 'enum', value, word: phrase };
  }
  return undefined;
}
