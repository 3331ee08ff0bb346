import type { CompileContext } from './compile-context.js';
import type { RuleList } from './decision.js';
import { fingerprint, stableStringify } from './fingerprint.js';
import type { RateLimitSpec } from './schema.js';

/** What a rule means, as comparable text: its keys without `id` and `description`. */
export function meaningOf(spec: object): string {
  return stableStringify({ ...spec, id: undefined, description: undefined });
}

/** Reserves a limiter for a rule with `rate_limit`, or returns -1. */
export function rateSlotFor(
  ctx: CompileContext,
  list: RuleList,
  spec: { rate_limit?: RateLimitSpec | undefined; description?: string | undefined },
): number {
  if (!spec.rate_limit) return -1;
  const meaning = fingerprint({ ...spec, description: undefined, list });
  return ctx.rateSlot(meaning, spec.rate_limit.calls, spec.rate_limit.windowMs);
}

/** Passes every call: the check of a rule with no constraints. */
export const ACCEPT = (): null => null;
