import type { CompiledPolicy } from './compiled.js';
import type { Obligation, PolicyDecision, PolicyExplanation, RuleRef } from './decision.js';
import { formatIssue } from './issues.js';

/** Plain-text renderings for the CLI and logs. */

const VERDICT: Record<PolicyDecision['outcome'], string> = {
  allow: 'ALLOW',
  deny: 'DENY',
  confirm: 'CONFIRM',
  rate_limited: 'RATE-LIMITED',
};

function where(ref: RuleRef): string {
  return `${ref.id} (${ref.file}:${ref.line}:${ref.column})`;
}

function formatObligation(o: Obligation): string {
  switch (o.type) {
    case 'filter_result_urls':
      return `filter_result_urls ${o.allow_domains.join(', ')}`;
    case 'limit_results':
      return `limit_results ${o.max_results}`;
  }
}

/** A decision and its trace, one fact per line. */
export function formatExplanation(explanation: PolicyExplanation): string[] {
  const { decision, trace } = explanation;
  const lines = [
    `${VERDICT[decision.outcome]}  ${where(decision.rule)}`,
    `reason: ${decision.reason}`,
  ];
  for (const o of decision.obligations) lines.push(`obligation: ${formatObligation(o)}`);
  if (decision.retry_after_ms !== undefined)
    lines.push(`retry after: ${decision.retry_after_ms} ms`);
  lines.push(`policy: sha256 ${decision.policy_sha256}`);
  if (trace.length > 0) {
    lines.push('rules considered:');
    for (const step of trace) {
      const detail = step.detail === undefined ? '' : `: ${step.detail}`;
      lines.push(`  ${step.result.padEnd(11)} ${where(step.rule)}${detail}`);
    }
  }
  return lines;
}

/** What `caesar policy check` prints for a policy that loaded. */
export function formatPolicySummary(policy: CompiledPolicy): string[] {
  const count = (list: string) => policy.rules.filter((r) => r.ref.list === list).length;
  const lines = [
    `${policy.file}: ok, ${policy.rules.length} rule${policy.rules.length === 1 ? '' : 's'} (sha256 ${policy.sha256})`,
    `  allowed_services ${count('allowed_services')}, denied_services ${count('denied_services')}, ` +
      `allowed_tools ${count('allowed_tools')}, denied_tools ${count('denied_tools')}`,
  ];
  for (const w of policy.warnings) lines.push(`warning: ${formatIssue(policy.file, w)}`);
  return lines;
}
