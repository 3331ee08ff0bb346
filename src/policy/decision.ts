import { z } from 'zod';

/** The four rule lists of a policy file. */
export const RULE_LISTS = [
  'allowed_services',
  'denied_services',
  'allowed_tools',
  'denied_tools',
  'denied_entities',
] as const;
export type RuleList = (typeof RULE_LISTS)[number];

/** `rule.id` of a decision no rule made: the default deny (and malformed or unconfigured calls). */
export const DEFAULT_DENY_RULE_ID = 'default_deny';

/**
 * The rule that decided: `{id, file, line}` plus where exactly it sits. `id` is the rule's
 * explicit `id:`, else `list[index]` (`allowed_tools[2]`), else `default_deny`; it is always a
 * string, so an audit row can store it as is. For the default deny `list` and `index` are null
 * and `line`/`column` point at the list an allow entry would go into (1:1 when it is absent).
 */
const RuleRefSchema = z.object({
  id: z.string(),
  file: z.string(),
  line: z.int().positive(),
  column: z.int().positive(),
  list: z.enum(RULE_LISTS).nullable(),
  index: z.int().nonnegative().nullable(),
});
export type RuleRef = z.infer<typeof RuleRefSchema>;

/**
 * What the caller must do when it acts on a decision. A caller that does not know an
 * obligation's type must not dispatch the call.
 */
const ObligationSchema = z.discriminatedUnion('type', [
  /** Drop every result whose URL host is neither an `allow_domains` entry nor below one. */
  z.object({ type: z.literal('filter_result_urls'), allow_domains: z.array(z.string()) }),
  /** Keep at most `max_results` results. */
  z.object({ type: z.literal('limit_results'), max_results: z.int().positive() }),
]);
export type Obligation = z.infer<typeof ObligationSchema>;

/**
 * `allow` is the only outcome that lets a call run now; `confirm` lets it run once a human
 * approved it; `deny` and `rate_limited` refuse it.
 */
export const DECISION_OUTCOMES = ['allow', 'deny', 'confirm', 'rate_limited'] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

/**
 * The brain-side error code (docs/errors.md) a refused call is answered with, per outcome.
 * `allow` has none.
 */
export const OUTCOME_ERROR_CODES = {
  deny: 'denied',
  confirm: 'confirmation_required',
  rate_limited: 'rate_limited',
} as const satisfies Record<Exclude<DecisionOutcome, 'allow'>, string>;

/**
 * The targeted entity a deny rule matched, when one entity explains the decision (an entity
 * rule, a deny rule of the entity's domain seen through another service, a deny rule whose
 * target names it). `service` is what Home Assistant runs on it (`homeassistant.turn_on` on
 * `cover.garage_door`: `cover.turn_on`), null when the policy cannot tell (a script, a scene).
 */
const MatchedTargetSchema = z.object({ entity_id: z.string(), service: z.string().nullable() });
export type MatchedTarget = z.infer<typeof MatchedTargetSchema>;

/**
 * A flow rule that applied to the call (ADR 0065): `after_untrusted` (a call that changes
 * state, asked by a model after it read untrusted content) or `after_private` (a call to an
 * open-world tool after private content), what it did, and where that was said: the rule's
 * own `after_*` key when it has one, else the policy's `flow:` setting (or its default).
 */
const FlowGateSchema = z.enum(['after_untrusted', 'after_private']);

const FlowVerdictSchema = z.object({
  gate: FlowGateSchema,
  action: z.enum(['allow', 'confirm', 'deny']),
  /** `<rule id> (<file:line:col>)` of the key that set the action, or `flow default`. */
  set_by: z.string(),
});
export type FlowVerdict = z.infer<typeof FlowVerdictSchema>;

export const PolicyDecisionSchema = z.object({
  /** True exactly when `outcome` is `allow`. */
  allowed: z.boolean(),
  outcome: z.enum(DECISION_OUTCOMES),
  /** One line for the LLM and the operator: the tool, what did not match, the file to edit. */
  reason: z.string(),
  rule: RuleRefSchema,
  /** The brain's decision id when it passed one, else null. */
  decision_id: z.string().nullable(),
  policy_sha256: z.string(),
  obligations: z.array(ObligationSchema),
  /**
   * Set when `outcome` is `rate_limited` by a window limit: how long until the rule admits
   * another call. Absent for a per-turn limit, which no wait lifts (a new turn does).
   */
  retry_after_ms: z.int().nonnegative().optional(),
  /** Set when a deny rule matched through one of the call's entities (see MatchedTargetSchema). */
  matched_target: MatchedTargetSchema.optional(),
  /** The flow rules that applied to the call, when it came with a flow context. */
  flow: z.array(FlowVerdictSchema).optional(),
  /**
   * The allow rule's `approvers:` (ADR 0096): a call held under it may be approved or
   * rejected only by a caller whose principal or one of whose groups is listed.
   */
  approvers: z.object({ principals: z.array(z.string()), groups: z.array(z.string()) }).optional(),
});
export type PolicyDecision = z.infer<typeof PolicyDecisionSchema>;

/** One rule the evaluator looked at, in the order it looked. */
const TraceStepSchema = z.object({
  rule: RuleRefSchema,
  /**
   * deny rules: `matched` / `not_matched`; allow rules: `matched` / `rejected`, or
   * `not_matched` when the rule names principals or groups the caller is not in.
   */
  result: z.enum(['matched', 'not_matched', 'rejected']),
  detail: z.string().optional(),
  /** The entity the rule matched, when it matched through one. */
  target: z.string().optional(),
  /**
   * A flow gate of the allow rule that matched (a model's call only): `matched` when it
   * applied (`detail`: its action, the key that set it, why), `not_matched` when not (why).
   */
  gate: FlowGateSchema.optional(),
});
export type TraceStep = z.infer<typeof TraceStepSchema>;

/** A decision with the rules considered on the way. */
export const PolicyExplanationSchema = z.object({
  decision: PolicyDecisionSchema,
  trace: z.array(TraceStepSchema),
});
export type PolicyExplanation = z.infer<typeof PolicyExplanationSchema>;
