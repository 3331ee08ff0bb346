import {
  errorEntry,
  errorMessage,
  type MessageParams,
  type WireErrorCode,
} from '../../errors/index.js';
import type { Principal, PolicyDecision } from '../../policy/index.js';
import type { ErrorBody } from '../../protocol/index.js';
import {
  principalOf,
  type CallOutcome,
  type Caller,
  type ConfirmationTicket,
  type ToolCallReport,
} from '../api/index.js';
import { API_ORIGIN, type CallOrigin } from './provenance.js';
import { msSince } from '../../clock/index.js';

/**
 * `<file>:<line>:<col>` of the rule that decided, in the policy that decided (`policy_sha256`):
 * the file as it was when that policy loaded, not as it is now.
 */
export function ruleAt(d: PolicyDecision): string {
  return `${d.rule.file}:${d.rule.line}:${d.rule.column}`;
}

/**
 * The decision as the audit log stores it: `rule` is the rule's id, `rule_at` where it sits
 * in the enforced policy `policy_sha256`, `matched_target` the entity it matched, if any.
 */
export function auditDecision(d: PolicyDecision) {
  const row = {
    allowed: d.allowed,
    outcome: d.outcome,
    reason: d.reason,
    rule: d.rule.id,
    rule_at: ruleAt(d),
    policy_sha256: d.policy_sha256,
    obligations: d.obligations,
  };
  // the entity a deny rule matched through (docs/policy.md, "Entity rules"), and the flow
  // rules that applied to a model's call (ADR 0065): why it ran, was held or was refused
  const withTarget =
    d.matched_target === undefined ? row : { ...row, matched_target: d.matched_target };
  return d.flow === undefined ? withTarget : { ...withTarget, flow: d.flow };
}

/** The fixed facts of one call, threaded through the gateway's steps. */
export interface CallContext {
  readonly tool: string;
  readonly input: unknown;
  readonly decisionId: string;
  readonly actor: string;
  /** Whom the policy judges: the caller's principal (ADR 0096), recorded on every row. */
  readonly principal: Principal;
  readonly sessionId: string | undefined;
  /** Who asked: a token directly, a local intent rule, or a model after what it read. */
  readonly origin: CallOrigin;
  /** performance.now() when the call arrived. */
  readonly started: number;
}

interface ReportExtra {
  reason?: string;
  decision?: PolicyDecision;
  result?: unknown;
  error?: ErrorBody;
  confirmation?: ConfirmationTicket;
  label?: ToolCallReport['label'];
  job?: ToolCallReport['job'];
}

export function report(
  ctx: CallContext,
  outcome: CallOutcome,
  extra: ReportExtra = {},
): ToolCallReport {
  const out: ToolCallReport = {
    tool: ctx.tool,
    input: ctx.input,
    outcome,
    decision_id: ctx.decisionId,
    duration_ms: msSince(ctx.started),
  };
  if (extra.reason !== undefined) out.reason = extra.reason;
  if (extra.decision !== undefined) {
    out.rule = extra.decision.rule.id;
    out.rule_at = ruleAt(extra.decision);
    out.policy_sha256 = extra.decision.policy_sha256;
  }
  if (extra.result !== undefined) out.result = extra.result;
  if (extra.error !== undefined) out.error = extra.error;
  if (extra.confirmation !== undefined) out.confirmation = extra.confirmation;
  if (extra.label !== undefined) out.label = extra.label;
  if (extra.job !== undefined) out.job = extra.job;
  return out;
}

function errorBody(
  code: ErrorBody['code'],
  message: string,
  retryable: boolean,
  details?: unknown,
): ErrorBody {
  return details === undefined
    ? { code, message, retryable }
    : { code, message, retryable, details };
}

/** A wire error with the catalogue's message for `code` and its default `retryable`. */
export function errorBodyOf<C extends WireErrorCode>(
  code: C,
  params: MessageParams<C>,
  details?: unknown,
): ErrorBody {
  return errorBody(code, errorMessage(code, params), errorEntry(code).retryable, details);
}

/** The facts of a call as it arrives. */
export function contextFor(
  tool: string,
  input: unknown,
  decisionId: string,
  caller: Caller,
  origin: CallOrigin = API_ORIGIN,
): CallContext {
  return {
    tool,
    input,
    decisionId,
    actor: caller.actor,
    principal: principalOf(caller),
    sessionId: caller.sessionId,
    origin,
    started: performance.now(),
  };
}

/** The report of a call not made because the audit log cannot be written (fail closed). */
export function auditUnavailable(ctx: CallContext): ToolCallReport {
  const what = `the call to ${ctx.tool} was not made`;
  const error = errorBodyOf('audit_unavailable', { what });
  return report(ctx, 'failed', { reason: error.message, error });
}
