import type {
  CompiledAllowRule,
  CompiledDenyRule,
  CompiledPolicy,
  Candidates,
} from './compiled.js';
import type {
  DecisionOutcome,
  FlowVerdict,
  MatchedTarget,
  PolicyDecision,
  RuleRef,
  TraceStep,
} from './decision.js';
import { entityDenial, type DeniesFor } from './evaluate-entities.js';
import { gateReason, gatesOf, passedNote, strongest, traceGates } from './evaluate-flow.js';
import type { FlowContext } from './flow-context.js';
import { isRecord } from '../text/index.js';
import {
  MATCH_ALL,
  normalizeServiceCall,
  type NormalizedServiceCall,
  type NormalizeResult,
} from './normalize.js';
import type { RuleWindows } from './rate-limit.js';
import { describeAudience, inAudience, type Audience, type Principal } from './principal.js';
import { show } from './show.js';
import { canonicalCallable, isServiceCallTool, TOOL_NAME_RE, type ToolCall } from './tool-call.js';
import { nearMissAllow } from './tool-names.js';
import { underOwnNames } from './matchers/registry.js';
import { toolRulesFor } from './rule-index.js';

/** Per-call context. */
export interface EvaluateContext {
  /** The brain's decision id, echoed as `decision_id`. @default null */
  decisionId?: string;
  /** A human approved this call, so rules with `confirm: true` may allow it. @default false */
  confirmed?: boolean;
  /** Where the idea for the call came from (a model's turn); absent: not a model's call. */
  flow?: FlowContext;
  /**
   * The `call_service` input already read by `normalizeServiceCall`, by a caller that reads
   * it for itself too (the brain's admitted call, ADR 0078), so a call is normalised once.
   * Used only for a `call_service` call, and it must be the reading of that call's input.
   * Absent: the engine reads the input itself (any input, ADR 0045).
   */
  service?: NormalizeResult;
  /**
   * The call's dotted tool id names an action `tool.action` of a registered tool (ADR 0092),
   * never a Home Assistant `domain.service`: the brain sets it from the tool's spec.
   * @default false: a dotted id no tool rule names is read as a service id
   */
  action?: boolean;
  /**
   * Who asks (ADR 0096): rules that name principals or groups apply only to a caller in them,
   * and their window limits count per principal. The brain sets it from the verified token.
   * @default none: only rules that name neither apply
   */
  principal?: Principal;
}

/** One consistent view for an evaluation: policy and its rate state swap together. */
export interface Runtime {
  readonly policy: CompiledPolicy;
  readonly limiters: readonly RuleWindows[];
  readonly now: () => number;
  /** Glob-only service keys seen so far (bounded), so globs are tested once per key. */
  readonly globCache: Map<string, Candidates<NormalizedServiceCall>>;
  /** The deny rules of a service key, for the entity rules (made once per runtime). */
  readonly deniesFor: DeniesFor;
}

/** What one evaluation may do besides deciding. */
export interface Mode {
  /** Count an allowed call against its rule's rate limit (`evaluate`), or not (`explain`). */
  readonly consume: boolean;
  /** Collects the rules looked at, when set. */
  readonly trace: TraceStep[] | null;
}

type Ctx = EvaluateContext | undefined;

const GLOB_CACHE_MAX = 4096;
const SERVICE_INPUT_KEYS: ReadonlySet<string> = new Set(['target', 'data']);

/**
 * Evaluation order: (1) read the call (a malformed call is denied); (2) deny rules for it in
 * file order, any match denies; (3) allow rules in file order, the first one that accepts the
 * call decides; none: denied by default; (4) for a model's call, that rule's flow gates; (5)
 * its `confirm`; (6) its `rate_limit`.
 */
export function evaluateCall(rt: Runtime, call: ToolCall, ctx: Ctx, mode: Mode): PolicyDecision {
  const unconfigured = rt.policy.denyAllReason;
  if (unconfigured !== null) return deny(rt, ctx, rt.policy.defaultDeny.tools, unconfigured);
  if (typeof call !== 'object' || call === null) {
    return deny(rt, ctx, rt.policy.defaultDeny.tools, 'malformed tool call: not an object');
  }
  const tool = (call as { tool?: unknown }).tool;
  if (tool === undefined) return evaluateServiceCall(rt, call, ctx, mode);
  if (typeof tool !== 'string') {
    return deny(rt, ctx, rt.policy.defaultDeny.tools, 'malformed tool call: tool must be a string');
  }
  const input = (call as { input?: unknown }).input;
  if (isServiceCallTool(tool)) {
    return evaluateServiceCall(rt, input, ctx, mode, ctx?.service);
  }
  if (tool.includes('.') && !isAction(rt, tool, ctx)) {
    const service = serviceFromId(tool, input);
    if (typeof service === 'string') return deny(rt, ctx, rt.policy.defaultDeny.services, service);
    return evaluateServiceCall(rt, service, ctx, mode);
  }
  const fallback = rt.policy.defaultDeny.tools;
  // a legacy Home Assistant name finds the rules of the action it names now (ADR 0093)
  const entry = toolRulesFor(rt.policy.toolIndex, canonicalCallable(tool));
  if (entry === undefined) return deny(rt, ctx, fallback, notListed(rt, 'tool', tool));
  return (
    decide(rt, entry, underOwnNames(tool, input), subject('tool', tool), fallback, ctx, mode) ??
    deny(rt, ctx, fallback, notListed(rt, 'tool', tool))
  );
}

/**
 * Decides a Home Assistant call given as `{domain, service, target?, data?}`: the entity rules
 * (evaluate-entities.ts), then the deny and allow rules of its service.
 */
function evaluateServiceCall(
  rt: Runtime,
  raw: unknown,
  ctx: Ctx,
  mode: Mode,
  read?: NormalizeResult,
): PolicyDecision {
  const unconfigured = rt.policy.denyAllReason;
  if (unconfigured !== null) return deny(rt, ctx, rt.policy.defaultDeny.services, unconfigured);
  const who = ctx?.principal;
  for (const kill of rt.policy.serviceKillSwitches) {
    if (applies(kill.who, who)) return matchedDeny(rt, kill, `service calls are`, ctx, mode);
  }
  const fallback = rt.policy.defaultDeny.services;
  const n = read ?? normalizeServiceCall(raw);
  if (!n.ok) return deny(rt, ctx, fallback, n.reason);
  const call = n.call;
  const what = subject('service', call.key);
  const rules = rt.policy.entityRules;
  // most calls name entities of their own domain only: no entity rule to ask, nothing allocated
  if (call.crossDomain || rules.entities.length > 0) {
    const hit = entityDenial(rules, call, rt.deniesFor, mode.trace, who);
    if (hit !== null) {
      const reason = `${what} is denied by ${hit.label}: ${hit.why}`;
      return withTarget(deny(rt, ctx, hit.ref, reason), hit.target);
    }
  }
  const entry = rt.policy.serviceIndex.get(call.key) ?? globCandidates(rt, call.key);
  const d =
    decide(rt, entry, call, what, fallback, ctx, mode) ??
    deny(rt, ctx, fallback, notListed(rt, 'service', call.key));
  return d.rule.list === 'denied_services' ? withTarget(d, targetOf(entry, d, call, mode)) : d;
}

/** The rules for a service key: its entry in the index, or the glob rules that match it. */
export function servicesFor(rt: Runtime, key: string): Candidates<NormalizedServiceCall> {
  return rt.policy.serviceIndex.get(key) ?? globCandidates(rt, key);
}

/**
 * The id a deny rule with a target matched (`keep-fridge-on` on `switch.tv, switch.fridge`:
 * the fridge), judged one entity at a time, also noted on the rule's trace step; null for a
 * rule without a target, or one that matched through a selector that names no entity.
 */
function targetOf(
  entry: Candidates<NormalizedServiceCall>,
  d: PolicyDecision,
  call: NormalizedServiceCall,
  mode: Mode,
): MatchedTarget | null {
  const rule = entry.denies.find((r) => r.ref === d.rule);
  if (rule === undefined || rule.bare) return null;
  for (const id of call.selectors[0] ?? []) {
    const one = { ...call, selectors: [[id], null, null, null, null], selectorCount: 1 };
    if (id === MATCH_ALL || !rule.matches(one)) continue;
    const step = mode.trace?.at(-1);
    if (step?.rule === rule.ref) step.target = id;
    return { entity_id: id, service: call.key };
  }
  return null;
}

function withTarget(d: PolicyDecision, target: MatchedTarget | null): PolicyDecision {
  return target === null ? d : { ...d, matched_target: target };
}

/**
 * Whether a dotted id names an action `tool.action` (ADR 0092) rather than a Home Assistant
 * service: the caller says so (the brain knows its registered tools), or the policy's tool
 * rules name the action or its tool. Otherwise it is read as `domain.service`, the HA shape.
 */
function isAction(rt: Runtime, tool: string, ctx: Ctx): boolean {
  return ctx?.action === true || toolRulesFor(rt.policy.toolIndex, tool) !== undefined;
}

/**
 * `{tool: 'light.turn_on', input: {target?, data?}}`, the HA shape under its `domain.service`
 * id, as a raw service call; or why it is malformed.
 */
function serviceFromId(id: string, input: unknown): Record<string, unknown> | string {
  const dot = id.indexOf('.');
  const base = { domain: id.slice(0, dot), service: id.slice(dot + 1) };
  if (input === undefined || input === null) return base;
  if (!isRecord(input)) return 'malformed service call: its input must be an object';
  for (const key of Object.keys(input)) {
    // `domain`/`service` inside the input could disagree with the id: refuse, never pick one.
    if (!SERVICE_INPUT_KEYS.has(key)) {
      return `malformed service call: its input holds only target and data, not ${show(key)}`;
    }
  }
  return { ...base, target: input.target, data: input.data };
}

/** Deny rules, then allow rules; null when no rule for the subject accepts or denies. */
function decide<C>(
  rt: Runtime,
  entry: Candidates<C>,
  call: C,
  what: string,
  fallback: RuleRef,
  ctx: Ctx,
  mode: Mode,
): PolicyDecision | null {
  const who = ctx?.principal;
  for (const rule of entry.denies) {
    if (!applies(rule.who, who)) {
      mode.trace?.push({ rule: rule.ref, result: 'not_matched', detail: notFor(rule.who!, who) });
      continue;
    }
    if (rule.bare || rule.matches(call)) return matchedDeny(rt, rule, `${what} is`, ctx, mode);
    mode.trace?.push({ rule: rule.ref, result: 'not_matched' });
  }
  let rejection: string | null = null;
  let otherCallers: string | null = null;
  for (const rule of entry.allows) {
    if (!applies(rule.who, who)) {
      const detail = notFor(rule.who!, who);
      mode.trace?.push({ rule: rule.ref, result: 'not_matched', detail });
      otherCallers ??= `${rule.label} ${detail}`;
      continue;
    }
    const why = rule.bare ? null : rule.check(call, rt.now);
    if (why === null) {
      mode.trace?.push({ rule: rule.ref, result: 'matched' });
      return grant(rt, rule, what, ctx, mode);
    }
    mode.trace?.push({ rule: rule.ref, result: 'rejected', detail: why });
    rejection ??= `${rule.label} rejects it: ${why}`;
  }
  if (rejection === null) {
    if (otherCallers === null) return null;
    return deny(
      rt,
      ctx,
      fallback,
      `${what} is not allowed for ${callerText(who)}: ${otherCallers}`,
    );
  }
  const more =
    entry.allows.length > 1 ? `; ${entry.allows.length - 1} other rule(s) rejected it too` : '';
  return deny(rt, ctx, fallback, `${what} is not allowed: ${rejection}${more}`);
}

/** Whether a rule for `audience` (null: every caller) applies to `who`. */
function applies(audience: Audience | null, who: Principal | undefined): boolean {
  return audience === null || inAudience(audience, who);
}

/** Why a rule for `audience` does not apply to `who`, for the trace and the reason. */
function notFor(audience: Audience, who: Principal | undefined): string {
  return `applies only to ${describeAudience(audience)}, not to ${callerText(who)}`;
}

/** `principal kids_tablet (groups kids)`, or `a caller with no principal`. */
export function callerText(who: Principal | undefined): string {
  if (who === undefined) return 'a caller with no principal';
  const groups = who.groups.length === 0 ? 'no groups' : `groups ${who.groups.join(', ')}`;
  return `principal ${who.name} (${groups})`;
}

function matchedDeny<C>(
  rt: Runtime,
  rule: CompiledDenyRule<C>,
  what: string,
  ctx: Ctx,
  mode: Mode,
): PolicyDecision {
  mode.trace?.push({ rule: rule.ref, result: 'matched' });
  return deny(rt, ctx, rule.ref, `${what} ${rule.reason}`);
}

/**
 * An allow rule accepted the call: its flow gates (a model's call only), then its `confirm`,
 * then its limits. A call held or refused by a gate or `confirm` consumes no rate budget.
 */
function grant<C>(
  rt: Runtime,
  rule: CompiledAllowRule<C>,
  what: string,
  ctx: Ctx,
  mode: Mode,
): PolicyDecision {
  const flow = ctx?.flow;
  if (flow === undefined) return confirmAndLimit(rt, rule, what, ctx, mode, undefined);
  const settings = rt.policy.flow;
  if (mode.trace !== null) traceGates(mode.trace, rule.ref, settings, rule.flow, flow);
  const gates = gatesOf(settings, rule.flow, flow);
  if (gates === null) return confirmAndLimit(rt, rule, what, ctx, mode, flow);
  const action = strongest(gates);
  if (action === 'deny' || (action === 'confirm' && ctx?.confirmed !== true)) {
    const reason = gateReason(what, rule.flow, gates, action);
    // a held call carries the obligations it will run under; a denied one, none
    const obligations = action === 'deny' ? NO_OBLIGATIONS : rule.obligations;
    return withFlow(
      withApprovers(decision(rt, ctx, action, reason, rule.ref, obligations), rule),
      gates,
    );
  }
  const d = withFlow(confirmAndLimit(rt, rule, what, ctx, mode, flow), gates);
  if (d.outcome === 'allow') d.reason += passedNote(rule.flow, gates);
  return d;
}

/** The decision with who may approve it, when the rule says (`approvers:`, ADR 0096). */
function withApprovers<C>(d: PolicyDecision, rule: CompiledAllowRule<C>): PolicyDecision {
  const a = rule.approvers;
  if (a === null) return d;
  d.approvers = { principals: [...a.principals], groups: [...a.groups] };
  return d;
}

/** The decision with the verdicts of the gates that applied (frozen lists, built at load). */
function withFlow(d: PolicyDecision, gates: readonly FlowVerdict[]): PolicyDecision {
  d.flow = gates as FlowVerdict[];
  return d;
}

/** The rule's `confirm` (unless a human approved the call), then its limits. */
function confirmAndLimit<C>(
  rt: Runtime,
  rule: CompiledAllowRule<C>,
  what: string,
  ctx: Ctx,
  mode: Mode,
  flow: FlowContext | undefined,
): PolicyDecision {
  if (rule.confirm && ctx?.confirmed !== true) {
    const by = rule.approvers === null ? '' : `, by ${describeAudience(rule.approvers)},`;
    const reason = `${what} needs a human's approval${by} before it runs (confirm: true on ${rule.label})`;
    return withApprovers(decision(rt, ctx, 'confirm', reason, rule.ref, rule.obligations), rule);
  }
  if (rule.rateSlot >= 0 || rule.turnLimit > 0) {
    const limited = limit(rt, rule, what, ctx, mode, flow);
    if (limited !== null) return limited;
  }
  // a call the brain holds anyway (hitl, preflight) keeps the rule's approvers
  return withApprovers(decision(rt, ctx, 'allow', rule.reason, rule.ref, rule.obligations), rule);
}

/**
 * The rule's window limit, then its per-turn limit (counted in the model's turn; none
 * without one): a `rate_limited` decision, or null once the call is counted against both.
 */
function limit<C>(
  rt: Runtime,
  rule: CompiledAllowRule<C>,
  what: string,
  ctx: Ctx,
  mode: Mode,
  flow: FlowContext | undefined,
): PolicyDecision | null {
  const windows = rule.rateSlot >= 0 ? (rt.limiters[rule.rateSlot] as RuleWindows) : null;
  // a rule for some principals counts each of them apart (ADR 0096)
  const limiter = windows?.of(ctx?.principal?.name, mode.consume) ?? null;
  const now = limiter === null ? 0 : rt.now();
  const wait = limiter === null ? 0 : limiter.waitMs(now);
  if (limiter !== null && wait > 0) {
    const retry = Math.ceil(wait);
    const each =
      windows?.perPrincipal === true
        ? ` for each principal (${ctx?.principal?.name ?? ''} has used them)`
        : '';
    const reason = `${what} is rate-limited: ${rule.label} allows ${limiter.limit} calls per ${limiter.windowMs} ms${each}; retry in ${retry} ms`;
    return {
      ...decision(rt, ctx, 'rate_limited', reason, rule.ref, rule.obligations),
      retry_after_ms: retry,
    };
  }
  const turn = rule.turnLimit > 0 ? flow?.turnCounts : undefined;
  const used = turn?.get(rule.ref.id) ?? 0;
  if (turn !== undefined && used >= rule.turnLimit) {
    const reason = `${what} is rate-limited: ${rule.label} allows ${rule.turnLimit} calls per turn, and this turn has made ${used}; it may run again in a new turn`;
    return decision(rt, ctx, 'rate_limited', reason, rule.ref, rule.obligations);
  }
  if (mode.consume) {
    limiter?.record(now);
    turn?.set(rule.ref.id, used + 1);
  }
  return null;
}

function deny(rt: Runtime, ctx: Ctx, rule: RuleRef, reason: string): PolicyDecision {
  return decision(rt, ctx, 'deny', reason, rule, NO_OBLIGATIONS);
}

const NO_OBLIGATIONS: PolicyDecision['obligations'] = Object.freeze(
  [],
) as unknown as PolicyDecision['obligations'];

function decision(
  rt: Runtime,
  ctx: Ctx,
  outcome: DecisionOutcome,
  reason: string,
  rule: RuleRef,
  obligations: CompiledAllowRule<unknown>['obligations'],
): PolicyDecision {
  return {
    allowed: outcome === 'allow',
    outcome,
    reason,
    rule,
    decision_id: ctx?.decisionId ?? null,
    policy_sha256: rt.policy.sha256,
    obligations: obligations as PolicyDecision['obligations'],
  };
}

/** `tool 'x'` / `service 'light.turn_on'`; a name that is not a valid id is shown clamped. */
function subject(kind: 'tool' | 'service', name: string): string {
  const valid = kind === 'service' || TOOL_NAME_RE.test(name);
  return `${kind} ${valid ? `'${name}'` : show(name)}`;
}

function notListed(rt: Runtime, kind: 'tool' | 'service', name: string): string {
  const list = kind === 'tool' ? 'allowed_tools' : 'allowed_services';
  const head = `${subject(kind, name)} is not on the allow-list: no ${list} entry in ${rt.policy.file} matches it`;
  const valid = kind === 'service' || TOOL_NAME_RE.test(name);
  if (!valid) return head;
  // a near-miss (`calculater` for `calculator`) is the likelier fix than a second entry
  const near = kind === 'tool' ? nearMissAllow(rt.policy.toolMentions, name) : undefined;
  if (near !== undefined) {
    return `${head}; ${list} lists '${near.tool}' (line ${near.line}): did you mean ${name}? correct it there`;
  }
  return `${head}; to allow it, add "- ${name}" under ${list} there`;
}

function globCandidates(rt: Runtime, key: string): Candidates<NormalizedServiceCall> {
  const cached = rt.globCache.get(key);
  if (cached !== undefined) return cached;
  const globs = rt.policy.serviceGlobs;
  const entry = {
    denies: globs.denies.filter((r) => r.glob?.test(key) === true),
    allows: globs.allows.filter((r) => r.glob?.test(key) === true),
  };
  if (rt.globCache.size >= GLOB_CACHE_MAX) rt.globCache.clear();
  rt.globCache.set(key, entry);
  return entry;
}

/**
 * Whether an allow rule that applies to `who` could allow some call of `tool`: a tool rule
 * naming it (its tool-wide rules for an action included) or, for a Home Assistant service
 * call, any `allowed_services` rule. What the planner and `/mcp` offer read it when the
 * explanation of an empty input denies (ADR 0096: another principal's rule offers nothing).
 */
export function hasAllowRuleFor(
  policy: CompiledPolicy,
  tool: string,
  who: Principal | undefined,
): boolean {
  const allows = isServiceCallTool(tool)
    ? [...policy.serviceGlobs.allows, ...[...policy.serviceIndex.values()].flatMap((c) => c.allows)]
    : (toolRulesFor(policy.toolIndex, canonicalCallable(tool))?.allows ?? []);
  return allows.some((r) => applies(r.who, who));
}
