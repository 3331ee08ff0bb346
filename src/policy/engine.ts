import type { CompiledPolicy } from './compiled.js';
import type { PolicyDecision, PolicyExplanation, TraceStep } from './decision.js';
import {
  evaluateCall,
  servicesFor,
  type EvaluateContext,
  type Mode,
  type Runtime,
} from './evaluate.js';
import { RuleWindows } from './rate-limit.js';
import type { ToolCall } from './tool-call.js';

/**
 * What the brain asks of the policy. `PolicyEngine` (one compiled policy) and `PolicyStore`
 * (the live, hot-reloaded file) both implement it. No method throws.
 */
export interface Policy {
  /** Decides a call. An allowed call counts against its rule's rate limit. */
  evaluate(call: ToolCall, ctx?: EvaluateContext): PolicyDecision;
  /** Decides a call without counting it, and lists the rules looked at on the way. */
  explain(call: ToolCall, ctx?: EvaluateContext): PolicyExplanation;
}

interface PolicyEngineOptions {
  /** Clock for rate limits and date checks, in epoch ms. @default Date.now */
  now?: () => number;
}

const CONSUME: Mode = { consume: true, trace: null };

/**
 * Evaluates tool calls against a compiled policy and keeps the rate-limit state. `swap` replaces
 * the policy atomically: an evaluation sees either the old or the new policy, never a mix.
 */
export class PolicyEngine implements Policy {
  private rt: Runtime;

  constructor(policy: CompiledPolicy, options: PolicyEngineOptions = {}) {
    this.rt = runtimeFor(policy, options.now ?? Date.now, new Map());
  }

  /** The policy evaluations currently use. */
  get policy(): CompiledPolicy {
    return this.rt.policy;
  }

  evaluate(call: ToolCall, ctx?: EvaluateContext): PolicyDecision {
    return evaluateCall(this.rt, call, ctx, CONSUME);
  }

  explain(call: ToolCall, ctx?: EvaluateContext): PolicyExplanation {
    const trace: TraceStep[] = [];
    const decision = evaluateCall(this.rt, call, ctx, { consume: false, trace });
    return { decision, trace };
  }

  /**
   * Switches to `policy` in one step. Rate-limit state carries over for rules whose meaning
   * (fingerprint) is unchanged, so an unrelated edit does not reset anyone's limits.
   */
  swap(policy: CompiledPolicy): void {
    const old = new Map<string, RuleWindows>();
    this.rt.policy.rateSlots.forEach((slot, i) => {
      const limiter = this.rt.limiters[i];
      if (limiter) old.set(slot.fingerprint, limiter);
    });
    this.rt = runtimeFor(policy, this.rt.now, old);
  }
}

function runtimeFor(
  policy: CompiledPolicy,
  now: () => number,
  previous: ReadonlyMap<string, RuleWindows>,
): Runtime {
  const limiters = policy.rateSlots.map(
    (s) => previous.get(s.fingerprint) ?? new RuleWindows(s.calls, s.windowMs, s.perPrincipal),
  );
  const rt: Runtime = {
    policy,
    limiters,
    now,
    globCache: new Map(),
    deniesFor: (key) => servicesFor(rt, key).denies,
  };
  return rt;
}
