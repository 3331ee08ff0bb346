/**
 * `src/policy`: YAML policy -> compiled policy; evaluate(ToolCall) -> PolicyDecision.
 * Pure: no NATS, no SQLite, no HTTP. See docs/policy.md.
 */
export { compilePolicy, compilePolicySliced } from './compile.js';
export type { CompileOptions } from './compile.js';
export type { CompiledPolicy, RuleSummary } from './compiled.js';
export { DEFAULT_POLICY_MAX_BYTES, loadPolicyFile, readPolicyText } from './load.js';
export type { ReadPolicyOptions } from './load.js';
export type { PolicyText } from './load.js';
export { NO_POLICY_FILE, NOT_CONFIGURED_REASON, unconfiguredPolicy } from './unconfigured.js';

export { PolicyEngine } from './engine.js';
export type { Policy, PolicyEngineOptions } from './engine.js';
export type { EvaluateContext } from './evaluate.js';
export { PolicyStore, openPolicyStore } from './store.js';
export type { PolicyStoreOptions } from './store.js';
export type {
  PolicyEvent,
  PolicyEventMap,
  PolicyReloadedEvent,
  PolicyReloadFailedEvent,
  ReloadTrigger,
} from './events.js';

export { CALL_SERVICE_TOOL, SELECTOR_KINDS, isGenericToolCall } from './tool-call.js';
export type {
  GenericToolCall,
  SelectorKind,
  ServiceCall,
  ServiceTarget,
  ToolCall,
} from './tool-call.js';
export { toolCallId } from './call-id.js';

export {
  DECISION_OUTCOMES,
  DEFAULT_DENY_RULE_ID,
  OUTCOME_ERROR_CODES,
  ObligationSchema,
  PolicyDecisionSchema,
  PolicyExplanationSchema,
  RULE_LISTS,
  RuleRefSchema,
  TraceStepSchema,
} from './decision.js';
export type {
  DecisionOutcome,
  Obligation,
  PolicyDecision,
  PolicyExplanation,
  RuleList,
  RuleRef,
  TraceStep,
} from './decision.js';
export { compileDomainAllowlist, isUrlAllowed } from './domains.js';
export { TOOL_MATCHERS } from './matchers/registry.js';
export type { ToolMatcher, TypedKey } from './matchers/types.js';

export { PolicyFileSchema } from './schema.js';
export type { PolicyFile } from './schema.js';
export { ConstraintSchema } from './constraint-schema.js';
export type { ConstraintSpec } from './constraint-schema.js';

export {
  PolicyCasesError,
  PolicyClosedError,
  PolicyError,
  PolicyLoadError,
  PolicyNotConfiguredError,
  PolicyReadError,
  PolicyTooLargeError,
} from './errors.js';
export type { PolicyErrorCode } from './errors.js';
export { formatIssue } from './issues.js';
export type { PolicyIssue } from './issues.js';

export { parsePolicyCases, runPolicyCases } from './cases.js';
export type { PolicyCase, PolicyCaseResult } from './cases.js';
export { formatExplanation, formatPolicySummary } from './format.js';
