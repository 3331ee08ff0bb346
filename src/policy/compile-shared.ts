import type { CompileContext } from './compile-context.js';
import { compileRuleFlow, type FlowAction, type FlowSettings } from './compile-flow.js';
import type { CompiledAllowRule } from './compiled.js';
import type { RuleList, RuleRef } from './decision.js';
import { fingerprint, stableStringify } from './fingerprint.js';
import type { Audience } from './principal.js';
import type { RateLimitSpec } from './schema.js';

/** What a rule means, as comparable text: its keys without `id` and `description`. */
export function meaningOf(spec: object): string {
  return stableStringify({ ...spec, id: undefined, description: undefined });
}

/** The keys of an allow rule `compileGrants` reads. */
interface GrantSpec {
  readonly confirm?: boolean | undefined;
  readonly rate_limit?: RateLimitSpec | undefined;
  readonly description?: string | undefined;
  readonly after_untrusted?: FlowAction | undefined;
  readonly after_private?: FlowAction | undefined;
  readonly approvers?: AudienceSpec | undefined;
  readonly principals?: readonly string[] | undefined;
  readonly groups?: readonly string[] | undefined;
}

/** `principals:` and `groups:` as written on a rule or under `approvers:`. */
interface AudienceSpec {
  readonly principals?: readonly string[] | undefined;
  readonly groups?: readonly string[] | undefined;
}

/** Whom a rule applies to, or null for a rule that names neither (it applies to everyone). */
export function compileAudience(spec: AudienceSpec | undefined): Audience | null {
  if (spec?.principals === undefined && spec?.groups === undefined) return null;
  return Object.freeze({
    principals: new Set(spec.principals ?? []),
    groups: new Set(spec.groups ?? []),
  });
}

/**
 * Reserves a limiter for a rule with a window limit, or returns -1. A rule that names
 * principals or groups counts each principal on its own (ADR 0096).
 */
function rateSlotFor(ctx: CompileContext, list: RuleList, spec: GrantSpec): number {
  const window = spec.rate_limit?.window;
  if (!window) return -1;
  const meaning = fingerprint({ ...spec, description: undefined, list });
  const perPrincipal = compileAudience(spec) !== null;
  return ctx.rateSlot(meaning, window.calls, window.windowMs, perPrincipal);
}

/** What an allow rule grants besides matching: `confirm`, its limits and its flow gates. */
export type Grants = Pick<
  CompiledAllowRule<unknown>,
  'confirm' | 'rateSlot' | 'turnLimit' | 'flow' | 'who' | 'approvers'
>;

/** The grants of an allow rule `ref` (of `list`), its flow gates resolved against `flow`. */
export function compileGrants(
  ctx: CompileContext,
  ref: RuleRef,
  spec: GrantSpec,
  flow: FlowSettings,
): Grants {
  const list = ref.list as RuleList;
  return {
    confirm: spec.confirm ?? false,
    rateSlot: rateSlotFor(ctx, list, spec),
    turnLimit: spec.rate_limit?.turnCalls ?? 0,
    flow: compileRuleFlow(ctx, ref, spec, flow),
    who: compileAudience(spec),
    approvers: compileAudience(spec.approvers),
  };
}

/** Passes every call: the check of a rule with no constraints. */
export const ACCEPT = (): null => null;
