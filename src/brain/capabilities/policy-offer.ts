import {
  hasAllowRuleFor,
  isServiceCallTool,
  type CompiledPolicy,
  type EvaluateContext,
  type PolicyExplanation,
  type Principal,
  type ToolCall,
} from '../../policy/index.js';
import type { CardPolicy } from '../llm/card.js';

/** What the brain reads of the policy to judge a tool as a whole; a PolicyStore is one. */
export interface OfferPolicy {
  readonly policy: CompiledPolicy;
  explain(call: ToolCall, ctx?: EvaluateContext): PolicyExplanation;
}

/** Whether the policy lets a tool be offered, and on what terms (see {@link CardPolicy}). */
export type PolicyOffer =
  | { readonly offer: true; readonly terms: CardPolicy; readonly why: string }
  | { readonly offer: false; readonly why: string; readonly grant: string };

/**
 * What the policy says about `tool` as a whole, judged on a call with no particular input:
 * - `allow`, `confirm` or `rate_limited` (allowed, just not right now): offered;
 * - denied by a deny rule (a bare `denied_tools` entry, the `call_service` kill switch): never;
 * - denied by default: offered when an allow rule for this caller names the tool (for
 *   `call_service`, any `allowed_services` rule) but its constraints need input this empty
 *   call lacks; the real
 *   call is judged again at the gate. A tool no allow rule names is never offered.
 * A tool not offered comes with the one edit of the policy file that would grant it.
 */
export function policyOffer(policy: OfferPolicy, tool: string, who?: Principal): PolicyOffer {
  // as the caller is judged (ADR 0096): a tool its principal is denied is not offered to it
  const d = policy.explain(
    { tool, input: {} },
    who === undefined ? {} : { principal: who },
  ).decision;
  if (d.outcome !== 'deny') {
    return { offer: true, terms: d.outcome === 'confirm' ? 'confirm' : 'allow', why: d.reason };
  }
  const file = policy.policy.file;
  if (policy.policy.denyAllReason !== null) {
    return { offer: false, why: d.reason, grant: policy.policy.denyAllReason };
  }
  if (d.rule.list !== null && d.rule.list.startsWith('denied_')) {
    const where = `${d.rule.id} (${d.rule.file}:${d.rule.line}:${d.rule.column})`;
    return { offer: false, why: d.reason, grant: `remove or narrow ${where}, which denies it` };
  }
  const service = isServiceCallTool(tool);
  // an allow rule for another principal offers nothing to this one (ADR 0096)
  if (hasAllowRuleFor(policy.policy, tool, who)) {
    return {
      offer: true,
      terms: 'some_inputs',
      why: 'allowed for some inputs; each call is judged',
    };
  }
  const grant = service
    ? `add the Home Assistant services it may call under \`allowed_services:\` in ${file}, ` +
      'such as `- service: light.turn_on` and `- service: light.turn_off`'
    : `add \`- tool: ${tool}\` under \`allowed_tools:\` in ${file}`;
  return { offer: false, why: service ? 'no allowed_services rule' : d.reason, grant };
}
