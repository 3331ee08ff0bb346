/**
 * `src/policy`: YAML policy -> compiled policy; evaluate(ToolCall) -> PolicyDecision.
 * Pure: no NATS, no SQLite, no HTTP. See docs/policy.md.
 */
export { compilePolicy } from './compile.js';
export type { CompiledPolicy } from './compiled.js';
export { DEFAULT_POLICY_MAX_BYTES, loadPolicyFile } from './load.js';
export type { ReadPolicyOptions } from './load.js';

export { PolicyEngine } from './engine.js';
export type { EvaluateContext } from './evaluate.js';
export { callerText, hasAllowRuleFor } from './evaluate.js';
export { describeAudience, inAudience } from './principal.js';
export type { Principal } from './principal.js';
export type { FlowContext } from './flow-context.js';
export { PolicyStore, openPolicyStore } from './store.js';
export type { PolicyEvent } from './events.js';

export { SELECTOR_KINDS, isServiceCallTool } from './tool-call.js';
export type { ToolCall } from './tool-call.js';
export { normalizeServiceCall } from './normalize.js';
export type { NormalizeResult } from './normalize.js';

export { OUTCOME_ERROR_CODES } from './decision.js';
export type { Obligation, PolicyDecision, PolicyExplanation } from './decision.js';
export { compileDomainAllowlist } from './domains.js';

export { PolicyError, PolicyLoadError } from './errors.js';
export { formatIssue } from './issues.js';
export type { PolicyIssue } from './issues.js';
export { unknownToolWarnings } from './tool-names.js';
export { unknownAudienceWarnings } from './audience-names.js';

export { flowSummary } from './flow-summary.js';

export { parsePolicyCases, runPolicyCases } from './cases.js';
export type { PolicyCaseResult } from './cases.js';
export {
  formatExplanation,
  formatPolicyIssueLine,
  formatPolicyStatus,
  formatPolicySummary,
  formatPolicyWarning,
  formatReloadFailed,
  formatReloaded,
} from './format.js';
