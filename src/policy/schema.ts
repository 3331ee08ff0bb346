import { z } from 'zod';
import { ConstraintMapSchema } from './constraint-schema.js';
import { DEFAULT_DENY_RULE_ID } from './decision.js';
import { DurationSchema } from './duration.js';
import { memoized } from './memo-schema.js';
import { checkToolRule, refuseAllowOnlyOperators } from './rule-checks.js';
import { SELECTOR_KINDS, TOOL_NAME_RE } from './tool-call.js';

/** The grammar of `policy.yaml`, version 1. Every object is strict: an unknown key is an error. */

/** A service id (`^[a-z0-9_]+\.[a-z0-9_]+$`), or a glob over ids when it holds `*` or `?`. */
const SERVICE_PATTERN_RE = /^[a-z0-9_*?]+\.[a-z0-9_*?]+$/;
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

const ServicePatternSchema = z.string().regex(SERVICE_PATTERN_RE, {
  error:
    'expected a service id domain.service matching ^[a-z0-9_]+\\.[a-z0-9_]+$, e.g. light.turn_on (globs * and ? allowed)',
});

const ToolNameSchema = z.string().regex(TOOL_NAME_RE, {
  error: 'expected a tool id matching ^[a-z][a-z0-9_]*$ (at most 64 characters), e.g. web_search',
});

const SelectorValuesSchema = z.preprocess(
  (v) => (typeof v === 'string' ? [v] : v),
  z
    .array(
      z
        .string()
        .transform((s) => s.trim().toLowerCase())
        .pipe(z.string().regex(/^[^\s,]+$/, { error: 'selector ids hold no spaces or commas' })),
    )
    .min(1),
);

/** Target selectors an allow rule permits or a deny rule forbids; at least one. */
export const TargetSchema = z
  .strictObject({
    entity_id: SelectorValuesSchema.optional(),
    device_id: SelectorValuesSchema.optional(),
    area_id: SelectorValuesSchema.optional(),
    floor_id: SelectorValuesSchema.optional(),
    label_id: SelectorValuesSchema.optional(),
  })
  .refine((t) => Object.keys(t).length > 0, 'target must list at least one selector');
export type TargetSpec = z.infer<typeof TargetSchema>;

const WindowSchema = DurationSchema.pipe(
  z.number().max(MAX_WINDOW_MS, { error: 'a rate limit window is at most 30d' }),
);

/** `{calls: 10, per: 1m}` or the shorthand `10/minute`, `10/1m`; normalised to `{calls, windowMs}`. */
export const RateLimitSchema = z
  .preprocess(
    (v, ctx) => {
      if (typeof v !== 'string') return v;
      const m = /^\s*(\d+)\s*\/\s*(.+?)\s*$/.exec(v);
      if (m) return { calls: Number(m[1]), per: m[2] };
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

export const AllowServiceRuleSchema = z.preprocess(
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

export const DenyServiceRuleSchema = z.preprocess(
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

export const AllowToolRuleSchema = z.preprocess(
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

export const DenyToolRuleSchema = z.preprocess(
  toolShorthand,
  z
    .strictObject({ tool: ToolNameSchema, ...common, input: InputSchema.optional() })
    .superRefine((rule, ctx) => checkToolRule('denied_tools', rule, ctx), ALWAYS),
);
export type DenyToolRuleSpec = z.infer<typeof DenyToolRuleSchema>;

/** An empty list may be written as a key with no items (`allowed_tools:`). */
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);

/** The whole file. `version` may be omitted (it means 1); any other version is refused. */
export const PolicyFileSchema = z.strictObject({
  version: z
    .literal(1, { error: 'unsupported policy version (this CAESAR reads version 1)' })
    .optional(),
  allowed_services: list(memoized(AllowServiceRuleSchema)),
  denied_services: list(memoized(DenyServiceRuleSchema)),
  allowed_tools: list(memoized(AllowToolRuleSchema)),
  denied_tools: list(memoized(DenyToolRuleSchema)),
});
export type PolicyFile = z.infer<typeof PolicyFileSchema>;
