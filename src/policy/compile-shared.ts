import type { CompileContext } from './compile-context.js';
import { compileRuleFlow, type FlowAction, type FlowSettings } from './compile-flow.js';
import type { CompiledAllowRule } from './compiled.js';
import type { RuleList, RuleRef } from './decision.js';
import { fingerprint, stableStringify } from './fingerprint.js';
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
}

/** Reserves a limiter for a rule with a window limit, or returns -1. */
function rateSlotFor(ctx: CompileContext, list: RuleList, spec: GrantSpec): number {
  const window = spec.rate_limit?.window;
  if (!window) return -1;
  const meaning = fingerprint({ ...spec, description: undefined, list });
  return ctx.rateSlot(meaning, window.calls, window.windowMs);
}

/** What an allow rule grants besides matching: `confirm`, its limits and its flow gates. */
export type Grants = Pick<
  CompiledAllowRule<unknown>,
  'confirm' | 'rateSlot' | 'turnLimit' | 'flow'
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
  };
}

/** Passes every call: the check of a rule with no constraints. */
export const ACCEPT = (): null => null;
