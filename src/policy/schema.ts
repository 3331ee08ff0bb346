import { z } from 'zod';
import { ConstraintMapSchema } from './constraint-schema.js';
import { DEFAULT_DENY_RULE_ID } from './decision.js';
import { durationSchema } from '../text/index.js';
import {
  EntityPatternSchema,
  EntitySelectorSchema,
  ServicePatternSchema,
  SlugSelectorSchema,
  ToolNameSchema,
} from './ids.js';
import { memoized } from './memo-schema.js';
import { checkToolRule, refuseAllowOnlyOperators } from './rule-checks.js';
import { SELECTOR_KINDS } from './tool-call.js';

/** The grammar of `policy.yaml`, version 1. Every object is strict: an unknown key is an error. */

const RULE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const MAX_WINDOW_MS = 30 * 86_400_000;

const RuleIdSchema = z
  .string()
  .regex(RULE_ID_RE, {
    error: 'rule id: 1-64 letters, digits, _ . : - (starting with a letter or digit)',
  })
  .refine((id) => id !== DEFAULT_DENY_RULE_ID, {
    error: `rule id '${DEFAULT_DENY_RULE_ID}' is reserved for the default deny`,
  });
const DescriptionSchema = z.string().max(500);

/** One id or a list of ids, each in its kind's grammar (see ids.ts). */
const selectorValues = <T extends z.ZodType<string, unknown>>(id: T) =>
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(id).min(1));

/** Target selectors an allow rule permits or a deny rule forbids; at least one. */
const TargetSchema = z
  .strictObject({
    entity_id: selectorValues(EntitySelectorSchema).optional(),
    device_id: selectorValues(SlugSelectorSchema('device id')).optional(),
    area_id: selectorValues(SlugSelectorSchema('area id')).optional(),
    floor_id: selectorValues(SlugSelectorSchema('floor id')).optional(),
    label_id: selectorValues(SlugSelectorSchema('label id')).optional(),
  })
  .refine((t) => Object.keys(t).length > 0, 'target must list at least one selector');
export type TargetSpec = z.infer<typeof TargetSchema>;

/** A window in the one duration grammar; a bare number (`per: 60`) is refused as ambiguous. */
const WindowSchema = durationSchema({ min: 1, max: MAX_WINDOW_MS });

/** `{calls: 10, per: 1m}` or the shorthand `10/minute`, `10/1m`; normalised to `{calls, windowMs}`. */
const RateLimitSchema = z
  .preprocess(
    (v, ctx) => {
      if (typeof v !== 'string') return v;
      // Split, then trim: `\s*(.+?)\s*$` backtracked quadratically over a run of spaces.
      const m = /^\s*(\d+)\s*\/(.*)$/s.exec(v);
      if (m) return { calls: Number(m[1]), per: (m[2] ?? '').trim() };
      ctx.addIssue({
        code: 'custom',
        message: 'expected a rate limit like 10/minute, 10/5m or {calls: 10, per: 1m}',
      });
      return z.NEVER;
    },
    z.strictObject({ calls: z.int().min(1).max(100_000), per: WindowSchema }),
  )
  .transform((r) => ({ calls: r.calls, windowMs: r.per }));
export type RateLimitSpec = z.infer<typeof RateLimitSchema>;

const DataSchema = ConstraintMapSchema.superRefine((data, ctx) => {
  for (const key of Object.keys(data)) {
    if ((SELECTOR_KINDS as readonly string[]).includes(key)) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `${key} is a target selector; constrain it under target:`,
      });
    }
  }
});

/** Tool input: each key is checked against the tool's matcher by `checkToolRule`. */
const InputSchema = z.record(z.string(), z.unknown());

/** Tool rules are checked as a whole even when one of their keys is wrong. */
const ALWAYS = { when: () => true };

const common = { id: RuleIdSchema.optional(), description: DescriptionSchema.optional() };
const grants = { confirm: z.boolean().optional(), rate_limit: RateLimitSchema.optional() };

const serviceShorthand = (v: unknown) => (typeof v === 'string' ? { service: v } : v);
const toolShorthand = (v: unknown) => (typeof v === 'string' ? { tool: v } : v);

const AllowServiceRuleSchema = z.preprocess(
  serviceShorthand,
  z.strictObject({
    service: ServicePatternSchema,
    ...common,
    target: TargetSchema.optional(),
    data: DataSchema.optional(),
    additional_data: z.boolean().optional(),
    ...grants,
  }),
);
export type AllowServiceRuleSpec = z.infer<typeof AllowServiceRuleSchema>;

const DenyServiceRuleSchema = z.preprocess(
  serviceShorthand,
  z
    .strictObject({
      service: ServicePatternSchema,
      ...common,
      target: TargetSchema.optional(),
      data: DataSchema.optional(),
    })
    .superRefine((rule, ctx) => {
      if (rule.data) refuseAllowOnlyOperators(ctx, ['data'], rule.data);
    }),
);
export type DenyServiceRuleSpec = z.infer<typeof DenyServiceRuleSchema>;

const AllowToolRuleSchema = z.preprocess(
  toolShorthand,
  z
    .strictObject({
      tool: ToolNameSchema,
      ...common,
      input: InputSchema.optional(),
      additional_input: z.boolean().optional(),
      ...grants,
    })
    .superRefine((rule, ctx) => checkToolRule('allowed_tools', rule, ctx), ALWAYS),
);
export type AllowToolRuleSpec = z.infer<typeof AllowToolRuleSchema>;

const DenyToolRuleSchema = z.preprocess(
  toolShorthand,
  z
    .strictObject({ tool: ToolNameSchema, ...common, input: InputSchema.optional() })
    .superRefine((rule, ctx) => checkToolRule('denied_tools', rule, ctx), ALWAYS),
);
export type DenyToolRuleSpec = z.infer<typeof DenyToolRuleSchema>;

/**
 * `denied_entities`: entities no call may name or reach, whatever the service (`lock.*`, or
 * `{entity_id: [switch.fridge], id, description}`).
 */
const DenyEntityRuleSchema = z.preprocess(
  (v) => (typeof v === 'string' ? { entity_id: v } : v),
  z.strictObject({ entity_id: selectorValues(EntityPatternSchema), ...common }),
);
export type DenyEntityRuleSpec = z.infer<typeof DenyEntityRuleSchema>;

/** An empty list may be written as a key with no items (`allowed_tools:`). */
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);

/** Each rule list's item schema, for validating a file rule by rule. */
export const RULE_ITEM_SCHEMAS = {
  allowed_services: memoized(AllowServiceRuleSchema),
  denied_services: memoized(DenyServiceRuleSchema),
  allowed_tools: memoized(AllowToolRuleSchema),
  denied_tools: memoized(DenyToolRuleSchema),
  denied_entities: memoized(DenyEntityRuleSchema),
} as const;

const version = z
  .literal(1, { error: 'unsupported policy version (this CAESAR reads version 1)' })
  .optional();

/** The whole file. `version` may be omitted (it means 1); any other version is refused. */
export const PolicyFileSchema = z.strictObject({
  version,
  allowed_services: list(RULE_ITEM_SCHEMAS.allowed_services),
  denied_services: list(RULE_ITEM_SCHEMAS.denied_services),
  allowed_tools: list(RULE_ITEM_SCHEMAS.allowed_tools),
  denied_tools: list(RULE_ITEM_SCHEMAS.denied_tools),
  denied_entities: list(RULE_ITEM_SCHEMAS.denied_entities),
});

/**
 * The file with its rules left unchecked: the first step of validating it rule by rule
 * (RULE_ITEM_SCHEMAS), which a sliced compile spreads over several turns of the event loop.
 */
export const PolicyShapeSchema = z.strictObject({
  version,
  allowed_services: list(z.unknown()),
  denied_services: list(z.unknown()),
  allowed_tools: list(z.unknown()),
  denied_tools: list(z.unknown()),
  denied_entities: list(z.unknown()),
});
export type PolicyFile = z.infer<typeof PolicyFileSchema>;
