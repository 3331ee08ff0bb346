import { CallableNameSchema } from '../../protocol/index.js';
import { CALL_OUTCOMES, type CallOutcome } from '../api/index.js';
import { z } from 'zod';
import { DATE_PHRASES } from './dates.js';

/**
 * The intents file as written (`config/intents.yaml`), version 1. Sentences, placeholders
 * and cross-references (unknown slots, unused slots) are checked after this schema, by
 * compile.ts, with the same file:line:column messages.
 */

/** Tool and intent names, as the wire protocol spells tool ids. */
const NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;
/** Slot names. */
const SLOT_NAME_RE = /^[a-z][a-z0-9_]{0,31}$/;

/** Replies other than `ok` a rule may override: the other outcomes, `unchanged`, `not_configured`. */
export const REPLY_OUTCOMES = [
  ...CALL_OUTCOMES.filter((o): o is Exclude<CallOutcome, 'ok'> => o !== 'ok'),
  'unchanged' as const,
  'not_configured' as const,
];

const name = (what: string) =>
  z.string().regex(NAME_RE, `expected a ${what} name: lowercase letters, digits and _`);
const phrase = z.string().trim().min(1).max(100);
const template = z.string().min(1).max(2000);

const TextSlotSchema = z.strictObject({
  type: z.literal('text'),
  /** Longest value in words. */
  max_words: z.int().min(1).max(64).optional(),
  /** Values that do not count as a match (compared case-insensitively). */
  exclude: z.array(phrase).max(100).optional(),
  default: z.string().trim().min(1).max(200).optional(),
});

/** A Home Assistant domain: `light`, `switch`, `fan`. */
const DOMAIN_RE = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A device named in words ("the kitchen"), resolved to one Home Assistant entity of `domain`
 * through the `ha_entities` tool before the rule's call is made.
 */
const EntitySlotSchema = z.strictObject({
  type: z.literal('entity'),
  domain: z.string().regex(DOMAIN_RE, 'expected a Home Assistant domain such as light'),
  /** Longest spoken name in words. */
  max_words: z.int().min(1).max(64).optional(),
  /** Names that do not count as a match (compared case-insensitively). */
  exclude: z.array(phrase).max(100).optional(),
});

const ExpressionSlotSchema = z.strictObject({ type: z.literal('expression') });

const NumberSlotSchema = z.strictObject({
  type: z.literal('number'),
  min: z.number().optional(),
  max: z.number().optional(),
  integer: z.boolean().optional(),
  default: z.number().optional(),
});

const EnumSlotSchema = z.strictObject({
  type: z.literal('enum'),
  /** Spoken phrase -> canonical value. */
  values: z
    .record(phrase, z.union([z.string().max(200), z.number(), z.boolean()]))
    .refine((v) => Object.keys(v).length > 0, 'expected at least one value')
    .refine((v) => Object.keys(v).length <= 100, 'expected at most 100 values'),
  default: phrase.optional(),
});

const DateRangeSlotSchema = z.strictObject({
  type: z.literal('date_range'),
  default: z.enum(DATE_PHRASES).optional(),
});

const SlotSchema = z.discriminatedUnion(
  'type',
  [
    TextSlotSchema,
    ExpressionSlotSchema,
    NumberSlotSchema,
    EnumSlotSchema,
    DateRangeSlotSchema,
    EntitySlotSchema,
  ],
  { error: 'expected type: text, expression, number, enum, date_range or entity' },
);
export type SlotSpec = z.infer<typeof SlotSchema>;
export type SlotType = SlotSpec['type'];

export const IntentSpecSchema = z.strictObject({
  name: name('intent'),
  /** What the rule does, for the "I can ..." list: "do arithmetic". */
  description: z.string().trim().min(1).max(120).optional(),
  /** A message the rule matches, for the "I can ..." list. */
  example: z.string().trim().min(1).max(200).optional(),
  // a tool, or an action of one: `home_assistant.call_service` (ADR 0092)
  tool: CallableNameSchema,
  sentences: z.array(z.string()).min(1).max(50),
  slots: z.record(z.string().regex(SLOT_NAME_RE, 'expected a slot name'), SlotSchema).optional(),
  /** The tool input: JSON-like data whose strings may hold `{slot}` placeholders. */
  input: z.unknown().optional(),
  /** Reply when the call succeeded. */
  reply: template,
  /** Replies for the other outcomes, each replacing its built-in default. */
  replies: z
    .strictObject({
      failed: template.optional(),
      denied: template.optional(),
      rate_limited: template.optional(),
      confirmation_required: template.optional(),
      rejected: template.optional(),
      unchanged: template.optional(),
      not_configured: template.optional(),
    })
    .optional(),
});
export type IntentSpec = z.infer<typeof IntentSpecSchema>;

export const IntentsFileSchema = z.strictObject({
  version: z.literal(1, 'unsupported intents file version (expected 1)'),
  intents: z.array(z.unknown()).max(200),
});
