import { citeRule } from './compile-context.js';
import type { CompiledPolicy } from './compiled.js';
import type { Obligation, PolicyDecision, PolicyExplanation } from './decision.js';
import type { PolicyReloadedEvent, PolicyReloadFailedEvent } from './events.js';
import { formatFlowSummary } from './flow-summary.js';
import { formatIssue, type PolicyIssue } from './issues.js';
import { reloadErrorPlace, type PolicyReloadError, type PolicyStatus } from './status.js';

/** Plain-text renderings for the CLI and logs. */

const VERDICT: Record<PolicyDecision['outcome'], string> = {
  allow: 'ALLOW',
  deny: 'DENY',
  confirm: 'CONFIRM',
  rate_limited: 'RATE-LIMITED',
};

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
  const sha = decision.policy_sha256;
  const lines = [
    `${VERDICT[decision.outcome]}  ${citeRule(decision.rule, sha)}`,
    `reason: ${decision.reason}`,
  ];
  const target = decision.matched_target;
  if (target !== undefined) {
    const runs =
      target.service === null
        ? 'what the service does to it is not known'
        : `Home Assistant runs it as ${target.service}`;
    lines.push(`target: ${target.entity_id} (${runs})`);
  }
  for (const v of decision.flow ?? []) {
    lines.push(`flow: ${v.gate} ${v.action} (set by ${v.set_by})`);
  }
  for (const o of decision.obligations) lines.push(`obligation: ${formatObligation(o)}`);
  if (decision.retry_after_ms !== undefined)
    lines.push(`retry after: ${decision.retry_after_ms} ms`);
  lines.push(`policy: sha256 ${decision.policy_sha256}`);
  if (trace.length > 0) {
    lines.push('rules considered:');
    for (const step of trace) {
      const detail = step.detail === undefined ? '' : `: ${step.detail}`;
      const on = step.target === undefined ? '' : ` on ${step.target}`;
      // a flow gate of the allow rule just above
      const what = step.gate === undefined ? citeRule(step.rule, sha) : `flow ${step.gate}`;
      lines.push(`  ${step.result.padEnd(11)} ${what}${on}${detail}`);
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
      `allowed_tools ${count('allowed_tools')}, denied_tools ${count('denied_tools')}, ` +
      `denied_entities ${count('denied_entities')}`,
  ];
  lines.push(...formatFlowSummary(policy));
  for (const w of policy.warnings) lines.push(`warning: ${formatIssue(policy.file, w)}`);
  return lines;
}

/** `sha256 1a2b3c4d5e6f`: a policy version as the terminal lines name it. */
function short(sha256: string): string {
  return `sha256 ${sha256.slice(0, 12)}`;
}

/** `<file:line:col>: <problem> [<code>]`: a refused reload in one phrase. */
function refusal(error: PolicyReloadError): string {
  return `${reloadErrorPlace(error)}: ${error.message} [${error.code}]`;
}

/**
 * The terminal line of a refused reload (`caesar brain`, `caesar up`): where, what, that the
 * last good policy stays enforced, and what to do.
 */
export function formatReloadFailed(event: PolicyReloadFailedEvent): string {
  return (
    `policy: NOT loaded: ${refusal(event.first)}; still enforcing the last good policy ` +
    `(${short(event.kept_sha256)}); fix the file and save it again ` +
    `(\`caesar policy check -p ${event.path}\` shows every problem)`
  );
}

/**
 * The terminal line of a warning about the enforced policy (`caesar brain`, `caesar up`), on
 * start and on each reload: `policy: warning: <path> <message> (<file:line:col>)`.
 */
export function formatPolicyIssueLine(file: string, w: PolicyIssue): string {
  const what = w.path === '' ? w.message : `${w.path} ${w.message}`;
  return `policy: warning: ${what} (${file}:${w.line}:${w.column})`;
}

/** The terminal line of a new policy going live; `recovered`: it ends a refused state. */
export function formatReloaded(event: PolicyReloadedEvent, recovered: boolean): string {
  const rules = `${event.rules} rule${event.rules === 1 ? '' : 's'}`;
  const head = `policy: loaded ${event.path} (${short(event.policy_sha256)}, ${rules})`;
  return recovered ? `${head}; the file is good again, the reload error is cleared` : head;
}

const STATE_TEXT: Record<PolicyStatus['status'], string> = {
  ok: 'ok: the file on disk is the enforced policy',
  stale: 'stale: the file on disk differs from the enforced policy and is not loaded yet',
  broken: 'broken: the file on disk cannot be loaded; the last good policy stays enforced',
};

/** What `caesar policy status` prints. */
export function formatPolicyStatus(s: PolicyStatus): string[] {
  const e = s.enforced;
  const lines = [
    `policy ${STATE_TEXT[s.status]}`,
    `enforced: ${e.path} (${short(e.sha256)}, ${e.rules} rule${e.rules === 1 ? '' : 's'}, loaded ${e.loaded_at})`,
    `on disk:  ${s.disk.sha256 === null ? 'missing or unreadable' : short(s.disk.sha256)}` +
      (s.disk.matches_enforced ? ' (same as enforced)' : ' (differs from enforced)'),
  ];
  const err = s.last_reload_error;
  if (err !== null) lines.push(`last reload error (${err.at}): ${refusal(err)}`);
  for (const w of s.warnings ?? []) lines.push(`warning: ${formatIssue(e.path, w)}`);
  if (s.status === 'broken') {
    lines.push(
      `fix: correct ${err === null ? e.path : reloadErrorPlace(err)} and save; ` +
        `\`caesar policy check -p ${e.path}\` lists every problem`,
    );
  }
  return lines;
}

/**
 * One line for a probe or a listing while the file on disk is not the enforced policy (broken,
 * or changed and not loaded yet); null while it is.
 */
export function formatPolicyWarning(s: PolicyStatus): string | null {
  if (s.status === 'ok') return null;
  const kept = `the last good policy (${short(s.enforced.sha256)}) stays enforced`;
  if (s.status === 'stale') {
    return `policy file ${s.enforced.path} changed on disk and is not loaded yet; ${kept}`;
  }
  const err = s.last_reload_error;
  const what = err === null ? `${s.enforced.path} cannot be loaded` : refusal(err);
  return (
    `policy file broken: ${what}; ${kept}; fix the file and save it ` +
    `(\`caesar policy check -p ${s.enforced.path}\` lists every problem)`
  );
}
