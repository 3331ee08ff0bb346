import type { FlowGate } from './compile-flow.js';
import type { CompiledPolicy } from './compiled.js';
import type { FlowVerdict } from './decision.js';

/**
 * What `caesar policy check` says about the flow rules (ADR 0066): each gate's action and
 * where it was set, and every place that accepts a risk (`after_*: allow`), so an accepted
 * risk is never silent.
 */
export interface FlowSummary {
  readonly after_untrusted: { readonly action: FlowVerdict['action']; readonly set_by: string };
  readonly after_private: { readonly action: FlowVerdict['action']; readonly set_by: string };
  readonly private_match: { readonly value: 'any' | 'shared_words'; readonly set_by: string };
  /**
   * `rule: null` for the `flow:` section itself (every allow rule without its own key accepts
   * the risk), else the id of the allow rule whose own key says `allow`.
   */
  readonly accepted_risks: readonly {
    readonly gate: FlowGate;
    readonly rule: string | null;
    readonly set_by: string;
  }[];
}

export function flowSummary(policy: CompiledPolicy): FlowSummary {
  const { afterUntrusted, afterPrivate, privateMatch, privateMatchSetBy } = policy.flow;
  const risks: FlowSummary['accepted_risks'][number][] = [];
  for (const v of [afterUntrusted, afterPrivate]) {
    if (v.action === 'allow') risks.push({ gate: v.gate, rule: null, set_by: v.set_by });
  }
  for (const rule of policy.rules) {
    for (const v of rule.flow ?? []) {
      if (v.action === 'allow') risks.push({ gate: v.gate, rule: rule.ref.id, set_by: v.set_by });
    }
  }
  const gate = (v: FlowVerdict) => ({ action: v.action, set_by: v.set_by });
  return {
    after_untrusted: gate(afterUntrusted),
    after_private: gate(afterPrivate),
    private_match: { value: privateMatch, set_by: privateMatchSetBy },
    accepted_risks: risks,
  };
}

/** The lines `caesar policy check` prints for the flow rules. */
export function formatFlowSummary(policy: CompiledPolicy): string[] {
  const s = flowSummary(policy);
  const lines = [
    `  flow: after_untrusted ${s.after_untrusted.action} (${s.after_untrusted.set_by})`,
    `        after_private ${s.after_private.action} (${s.after_private.set_by})`,
    `        private_match ${s.private_match.value} (${s.private_match.set_by})`,
  ];
  for (const r of s.accepted_risks) {
    const scope = r.rule === null ? `every allow rule without its own ${r.gate}` : r.rule;
    lines.push(`  accepts a risk: ${r.gate}: allow on ${scope}, set by ${r.set_by}`);
  }
  return lines;
}
