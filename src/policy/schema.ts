import { z } from 'zod';
import { forwardIssues, zodMessage } from '../protocol/index.js';
import { ConstraintMapSchema } from './constraint-schema.js';
import { DEFAULT_DENY_RULE_ID } from './decision.js';
import { durationSchema } from '../text/index.js';
import {
  EntityPatternSchema,
  EntitySelectorSchema,
  ServicePatternSchema,
  SlugSelectorSchema,
  ToolNameSchema,
  ActionNameSchema,
} from './ids.js';
import { memoized } from './memo-schema.js';
import { PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE } from './principal.js';
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

/** `per: turn`: the limit counts the calls of one model turn (docs/policy.md, "Flow rules"). */
const PER_TURN = 'turn';

/** One limit, normalised: calls per window, or calls per model turn. */
type OneLimit =
  | { readonly calls: number; readonly windowMs: number }
  | { readonly calls: number; readonly perTurn: true };

/** `{calls: 10, per: 1m}`, `{calls: 3, per: turn}`; `per` is a duration or the word `turn`. */
const LimitObjectSchema = z
  .strictObject({ calls: z.int().min(1).max(100_000), per: z.unknown() })
  .transform((r, ctx): OneLimit => {
    if (r.per === PER_TURN) return { calls: r.calls, perTurn: true };
    const window = WindowSchema.safeParse(r.per);
    if (window.success) return { calls: r.calls, windowMs: window.data };
    forwardIssues(ctx, window.error, ['per'], (issue) => {
      return `${zodMessage(issue)}; or ${PER_TURN} (per model turn)`;
    });
    return z.NEVER;
  });

/** One limit, or its shorthand `10/minute`, `10/1m`, `3/turn`. */
const OneLimitSchema = z.preprocess((v, ctx) => {
  if (typeof v !== 'string') return v;
  // Split, then trim: `\s*(.+?)\s*$` backtracked quadratically over a run of spaces.
  const m = /^\s*(\d+)\s*\/(.*)$/s.exec(v);
  if (m) return { calls: Number(m[1]), per: (m[2] ?? '').trim() };
  ctx.addIssue({
    code: 'custom',
    message: 'expected a rate limit like 10/minute, 10/5m, 3/turn or {calls: 10, per: 1m}',
  });
  return z.NEVER;
}, LimitObjectSchema);

/** A rule's limits: calls per window, calls per model turn; null where none is written. */
interface RateLimits {
  window: { calls: number; windowMs: number } | null;
  turnCalls: number | null;
}

/**
 * `rate_limit`: one limit, or a list of at most one window limit and one per-turn limit
 * (`[10/hour, 3/turn]`). Normalised to `{window, turnCalls}`, either null when not written.
 */
const RateLimitSchema = z.unknown().transform((v, ctx): RateLimits => {
  const many = Array.isArray(v);
  const items: unknown[] = many ? v : [v];
  if (many && (items.length < 1 || items.length > 2)) {
    ctx.addIssue({ code: 'custom', message: 'expected one or two limits (a window, a turn)' });
    return z.NEVER;
  }
  const out: RateLimits = { window: null, turnCalls: null };
  for (const [i, item] of items.entries()) {
    const at = many ? [i] : [];
    const one = OneLimitSchema.safeParse(item);
    if (!one.success) {
      forwardIssues(ctx, one.error, at);
      continue;
    }
    const limit = one.data;
    const perTurn = 'perTurn' in limit;
    if (perTurn ? out.turnCalls !== null : out.window !== null) {
      const message = `a second ${perTurn ? 'per-turn' : 'window'} limit: write at most one of each`;
      ctx.addIssue({ code: 'custom', path: at, message });
    } else if (perTurn) out.turnCalls = limit.calls;
    else out.window = { calls: limit.calls, windowMs: limit.windowMs };
  }
  return out;
});
export type RateLimitSpec = z.infer<typeof RateLimitSchema>;

/** What the flow rules may do with a call they apply to (docs/policy.md, "Flow rules"). */
const FlowActionSchema = z.enum(['allow', 'confirm', 'deny'], {
  error: 'expected allow, confirm or deny',
});

/**
 * The top-level `flow:` section: what to do with a model's call after its turn read untrusted
 * content (`after_untrusted`) or private data (`after_private`), and how a private read is
 * matched to an open-world call (`private_match`). Every key is optional; see compile-flow.ts
 * for the defaults.
 */
const FlowSectionSchema = z
  .strictObject({
    after_untrusted: FlowActionSchema.optional(),
    after_private: FlowActionSchema.optional(),
    private_match: z
      .enum(['any', 'shared_words'], { error: 'expected any or shared_words' })
      .optional(),
  })
  .nullish()
  .transform((v) => v ?? {});
export type FlowSectionSpec = z.infer<typeof FlowSectionSchema>;

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

/** Names a rule lists under `principals:` or `groups:`; at most 64, none twice. */
const MAX_AUDIENCE = 64;
const NameListSchema = z
  .array(z.string().regex(PRINCIPAL_NAME_RE, PRINCIPAL_NAME_RULE))
  .min(1, 'list at least one name, or leave the key out')
  .max(MAX_AUDIENCE, `at most ${MAX_AUDIENCE} names`)
  .refine((a) => new Set(a).size === a.length, 'a name is listed twice');

/**
 * `principals:` / `groups:` (ADR 0096): the rule applies only to a caller whose principal is
 * listed or who is in a listed group; a rule with neither applies to every caller.
 */
const audience = {
  principals: NameListSchema.optional(),
  groups: NameListSchema.optional(),
};

/**
 * `approvers: {groups: [parents]}`: a call this rule holds for confirmation may be approved
 * or rejected only by a caller in it (ADR 0096).
 */
const ApproversSchema = z
  .strictObject(audience)
  .refine(
    (a) => a.principals !== undefined || a.groups !== undefined,
    'approvers must list principals or groups',
  );

const common = {
  id: RuleIdSchema.optional(),
  description: DescriptionSchema.optional(),
  ...audience,
};
const grants = {
  approvers: ApproversSchema.optional(),
  confirm: z.boolean().optional(),
  rate_limit: RateLimitSchema.optional(),
  /** This rule's own flow actions, over the `flow:` section's, for calls it allows. */
  after_untrusted: FlowActionSchema.optional(),
  after_private: FlowActionSchema.optional(),
};

const serviceShorthand = (v: unknown) => (typeof v === 'string' ? { service: v } : v);
const toolShorthand = (v: unknown) => (typeof v === 'string' ? { tool: v } : v);

/**
 * `actions: [entities, call_service]`: the rule applies to those actions of its tool only
 * (ADR 0092); without it, a rule naming a tool applies to every action of it.
 */
const ActionsSchema = z
  .array(ActionNameSchema)
  .min(1, 'list at least one action, or leave `actions` out for all of them')
  .max(16)
  .refine((a) => new Set(a).size === a.length, 'actions must not repeat');

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

/** What an allow and a deny rule for tools both take. */
const toolRule = {
  tool: ToolNameSchema,
  actions: ActionsSchema.optional(),
  ...common,
  input: InputSchema.optional(),
};

const AllowToolRuleSchema = z.preprocess(
  toolShorthand,
  z
    .strictObject({ ...toolRule, additional_input: z.boolean().optional(), ...grants })
    .superRefine((rule, ctx) => checkToolRule('allowed_tools', rule, ctx), ALWAYS),
);
export type AllowToolRuleSpec = z.infer<typeof AllowToolRuleSchema>;

const DenyToolRuleSchema = z.preprocess(
  toolShorthand,
  z
    .strictObject(toolRule)
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
  flow: FlowSectionSchema,
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
  flow: FlowSectionSchema,
  allowed_services: list(z.unknown()),
  denied_services: list(z.unknown()),
  allowed_tools: list(z.unknown()),
  denied_tools: list(z.unknown()),
  denied_entities: list(z.unknown()),
});
export type PolicyFile = z.infer<typeof PolicyFileSchema>;
