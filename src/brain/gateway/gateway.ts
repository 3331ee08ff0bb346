import { AuditError, type AnyAuditEventInput } from '../../audit/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import {
  CALL_SERVICE_TOOL,
  OUTCOME_ERROR_CODES,
  type FlowContext,
  type PolicyDecision,
  type PolicyExplanation,
} from '../../policy/index.js';
import { errorMessage } from '../../errors/index.js';
import {
  InvalidInputError,
  specEffects,
  summariseFieldIssues,
  type DispatchReply,
  type ErrorBody,
  type FieldIssue,
} from '../../protocol/index.js';
import type { Caller, ExplainFlow, PendingConfirmation, ToolCallReport } from '../api/index.js';
import type { Dispatcher } from '../dispatch/index.js';
import type { RegisteredTool } from '../registry/index.js';
import { ConfirmationBook, type PendingCall, type VoidReason } from './confirmations.js';
import { ConfirmationNotFoundError } from './errors.js';
import { heldCallAccount, pendingView } from './held-call.js';
import { newDecisionId, traceparentFor } from './ids.js';
import { applyObligations, unknownObligation } from './obligations.js';
import type { AuditSink, GatewayMetrics, PolicySource, ToolSource } from './ports.js';
import {
  auditDecision,
  auditUnavailable,
  contextFor,
  errorBody,
  errorBodyOf,
  report,
  serviceOf,
  type CallContext,
} from './records.js';
import { ToolInputCheck } from './input-check.js';
import {
  API_ORIGIN,
  auditProvenance,
  flowContextOf,
  labelOf,
  type CallOrigin,
  type ContentLabel,
} from './provenance.js';
import { summarizeCall } from './summary.js';

interface ToolGatewayOptions {
  tools: ToolSource;
  policy: PolicySource;
  audit: AuditSink;
  dispatcher: Dispatcher;
  /** Deadline of one call; a tool's own `timeout_ms` may cut it shorter. */
  callTimeoutMs: number;
  /** How long a call may wait for confirmation. */
  confirmationTtlMs: number;
  /**
   * The step that starts a tool no worker serves, for the `no_worker` message (the brain's
   * `startStep`, which knows how this stack starts workers).
   * @default "start it: `caesar legion serve-tool <tool>`"
   */
  startStep?: (tool: string) => string;
  metrics?: GatewayMetrics;
  logger?: Logger;
}

/**
 * The one path every tool call takes, from chat or the API: live tool -> input checked once
 * -> policy -> `tool.called` made durable -> dispatch with a deadline -> reply schema ->
 * obligations -> `tool.result` / `tool.failed`. Refusals append `tool.denied`. Every step
 * ends in a ToolCallReport: nothing here throws for a tool-level failure. If the audit log
 * cannot take `tool.called`, the call is not dispatched (fail closed). While the NATS
 * connection is down, an allowed call is answered `bus_unavailable` at once and recorded as
 * `tool.failed`, with no `tool.called`: nothing claims a call that was never sent.
 */
export class ToolGateway {
  readonly #o: ToolGatewayOptions;
  readonly #log: Logger;
  readonly #inputs = new ToolInputCheck();
  readonly #book: ConfirmationBook;

  constructor(options: ToolGatewayOptions) {
    this.#o = options;
    this.#log = options.logger ?? silentLogger();
    this.#book = new ConfirmationBook({
      ttlMs: options.confirmationTtlMs,
      onVoid: (call, reason) => this.#voided(call, reason),
    });
  }

  /** Calls waiting for a human. */
  get pendingConfirmations(): number {
    return this.#book.size;
  }

  /**
   * The calls waiting for a human, oldest first, as `GET /v1/confirmations` shows them: what
   * would run (the summary), the rule that asked for confirmation, who asked, the flow rules
   * that held it and what the model had read (ADR 0068). The input itself stays in the
   * book: the summary names what runs, and the audit log holds the input redacted.
   */
  pending(): PendingConfirmation[] {
    return this.#book.list().map(pendingView);
  }

  /**
   * Judges and runs one call. `origin` says who asked: a token directly (the default), a
   * local intent rule, or a model after what it had read, which the policy's flow rules
   * judge (ADR 0065).
   */
  async invoke(
    tool: string,
    input: unknown,
    caller: Caller,
    origin: CallOrigin = API_ORIGIN,
  ): Promise<ToolCallReport> {
    const ctx = contextFor(tool, input, newDecisionId(), caller, origin);
    const registered = this.#o.tools.tool(tool);
    const checked = this.#inputs.input(tool, registered, input);
    if (!checked.ok) return this.#count(await this.#invalid(ctx, checked.problems));
    const decision = this.#decide(ctx, registered, false);
    const refused = await this.#refusal(ctx, decision, registered);
    if (refused) return this.#count(refused);
    if (decision.outcome === 'confirm') return this.#count(await this.#hold(ctx, decision));
    return this.#count(await this.#run(ctx, decision, registered as RegisteredTool));
  }

  /**
   * Approves (runs once) or rejects a call waiting for confirmation. An approved call is
   * judged again with `confirmed: true` (so rate limits still apply) and checked against
   * the tool as it is now. A rejection with `stopTurn` says so in its row and its reason:
   * the caller stops the call's turn too (ADR 0068).
   * @throws ConfirmationNotFoundError when the id is unknown, used, expired or voided.
   */
  async confirm(
    id: string,
    approve: boolean,
    caller: Caller,
    options: { stopTurn?: boolean } = {},
  ): Promise<ToolCallReport> {
    const pending = this.#book.take(id);
    if (pending === undefined) throw new ConfirmationNotFoundError(id);
    if (pending.decision.policy_sha256 !== this.#o.policy.policy.sha256) {
      this.#voided(pending, 'policy_reloaded');
      throw new ConfirmationNotFoundError(id);
    }
    const ctx = contextFor(
      pending.tool,
      pending.input,
      pending.decisionId,
      pending.caller,
      pending.origin,
    );
    const by = { confirmation_id: id, by: caller.actor };
    if (!approve) {
      const stop = options.stopTurn === true ? { stop_turn: true } : {};
      const row = { ...by, reason: 'rejected', ...stop };
      await this.#record(ctx, 'tool.rejected', row, 'rejected', caller);
      const why = `rejected by ${caller.actor}${options.stopTurn === true ? ', who stopped the turn' : ''}`;
      return this.#count(report(ctx, 'rejected', { reason: why }));
    }
    if (!(await this.#record(ctx, 'tool.confirmed', by, 'confirmed', caller))) {
      return this.#count(auditUnavailable(ctx));
    }
    const registered = this.#o.tools.tool(ctx.tool);
    // the tool may have changed since the call was held: check it against the tool as it is now
    const checked = this.#inputs.input(ctx.tool, registered, ctx.input);
    if (!checked.ok) return this.#count(await this.#invalid(ctx, checked.problems));
    const decision = this.#decide(ctx, registered, true);
    const refused = await this.#refusal(ctx, decision, registered);
    if (refused) return this.#count(refused);
    if (decision.outcome !== 'allow') {
      return this.#count(await this.#deny(ctx, decision, 'denied', decision.reason));
    }
    return this.#count(await this.#run(ctx, decision, registered as RegisteredTool));
  }

  /**
   * Rejects a call still waiting because `by` stopped its turn with the rejection of
   * `stoppedWith` (ADR 0068): `tool.rejected` with reason `turn_stopped`. Undefined when it
   * no longer waits (decided meanwhile, expired, voided).
   */
  async rejectStopped(
    id: string,
    by: Caller,
    stoppedWith: string,
  ): Promise<ToolCallReport | undefined> {
    const pending = this.#book.take(id);
    if (pending === undefined) return undefined;
    const { tool, input, decisionId, caller, origin } = pending;
    const ctx = contextFor(tool, input, decisionId, caller, origin);
    const row = {
      confirmation_id: id,
      by: by.actor,
      reason: 'turn_stopped',
      stopped_with: stoppedWith,
    };
    await this.#record(ctx, 'tool.rejected', row, 'rejected', by);
    const reason = `rejected: ${by.actor} stopped the turn`;
    return this.#count(report(ctx, 'rejected', { reason }));
  }

  /**
   * What the policy would decide about a call, without counting it: after the same input
   * check `invoke` makes, so an explanation never judges an input a call could not carry.
   * With `flow`, as a model's call after its turn read what `flow` says; what the call does
   * comes from the live tool's spec (a tool no worker serves is taken to do everything).
   * @throws InvalidInputError when the input fails the check (`details` per field).
   */
  explain(tool: string, input: unknown, flow?: ExplainFlow): PolicyExplanation {
    const registered = this.#o.tools.tool(tool);
    const checked = this.#inputs.input(tool, registered, input);
    if (!checked.ok) {
      const issues = summariseFieldIssues(checked.problems);
      const message = errorMessage('invalid_input', { tool, issues });
      throw new InvalidInputError(message, { tool, details: checked.problems });
    }
    if (flow === undefined) return this.#o.policy.explain({ tool, input });
    const context: FlowContext = {
      afterUntrusted: flow.after_untrusted,
      afterPrivate: flow.after_private,
      sharesPrivateWords: flow.shares_private_words,
      ...specEffects(tool, registered?.spec),
    };
    return this.#o.policy.explain({ tool, input }, { flow: context });
  }

  /** Voids calls confirmed under an older policy; the daemon calls it on every reload. */
  policyReloaded(sha256: string): void {
    const n = this.#book.voidStale(sha256);
    if (n > 0) this.#log.info({ voided: n }, 'policy reloaded: pending confirmations voided');
  }

  close(): void {
    this.#book.close();
  }

  #decide(ctx: CallContext, tool: RegisteredTool | undefined, confirmed: boolean): PolicyDecision {
    const flow = flowContextOf(ctx.origin, ctx.tool, tool?.spec ?? null, ctx.input);
    let d = this.#o.policy.evaluate(
      { tool: ctx.tool, input: ctx.input },
      flow === undefined
        ? { decisionId: ctx.decisionId, confirmed }
        : { decisionId: ctx.decisionId, confirmed, flow },
    );
    if (d.outcome === 'allow' && !confirmed && tool?.spec.hitl === 'confirm') {
      d = {
        ...d,
        allowed: false,
        outcome: 'confirm',
        reason: `${ctx.tool} declares that a human confirms each call (hitl: confirm); ${d.reason}`,
      };
    }
    this.#o.metrics?.decision(d.rule.id, d.outcome);
    return d;
  }

  /** The refusals that end a call before anything runs; undefined when it may go on. */
  async #refusal(
    ctx: CallContext,
    d: PolicyDecision,
    tool: RegisteredTool | undefined,
  ): Promise<ToolCallReport | undefined> {
    const denied = await this.#denial(ctx, d);
    if (denied) return denied;
    const unknown = unknownObligation(d.obligations);
    if (unknown !== undefined) {
      const why = `the policy attaches obligation '${unknown}', which this brain cannot apply`;
      return this.#deny(ctx, d, 'denied', why);
    }
    // with the bus down the registry may have lost the tool: the bus is the reason
    if (tool === undefined) {
      return (
        (await this.#busDown(ctx, d)) ??
        this.#undispatched(
          ctx,
          d,
          errorBodyOf('no_worker', { tool: ctx.tool, start: this.#start(ctx.tool) }),
        )
      );
    }
    return this.#busDown(ctx, d);
  }

  #start(tool: string): string {
    return this.#o.startStep?.(tool) ?? `start it: \`caesar legion serve-tool ${tool}\``;
  }

  /** `tool.denied` for a decision that denies or rate-limits; undefined for any other. */
  async #denial(ctx: CallContext, d: PolicyDecision): Promise<ToolCallReport | undefined> {
    if (d.outcome !== 'deny' && d.outcome !== 'rate_limited') return undefined;
    const outcome = d.outcome === 'deny' ? 'denied' : 'rate_limited';
    return this.#deny(ctx, d, OUTCOME_ERROR_CODES[d.outcome], d.reason, outcome);
  }

  /** `bus_unavailable` when the dispatcher's connection is down; undefined when it is up. */
  async #busDown(ctx: CallContext, d: PolicyDecision): Promise<ToolCallReport | undefined> {
    const bus = this.#o.dispatcher.bus();
    if (bus.ok) return undefined;
    const why = bus.detail ?? 'not connected';
    return this.#undispatched(ctx, d, errorBodyOf('bus_unavailable', { why, tool: ctx.tool }));
  }

  /** A call allowed but never sent: `tool.failed` with the reason, and no `tool.called`. */
  async #undispatched(
    ctx: CallContext,
    d: PolicyDecision,
    error: ErrorBody,
  ): Promise<ToolCallReport> {
    await this.#record(ctx, 'tool.failed', { error, decision: auditDecision(d) }, 'error');
    return report(ctx, 'failed', { decision: d, reason: error.message, error });
  }

  async #deny(
    ctx: CallContext,
    d: PolicyDecision,
    code: string,
    reason: string,
    outcome: 'denied' | 'rate_limited' = 'denied',
  ): Promise<ToolCallReport> {
    const decision = { ...auditDecision(d), reason };
    const provenance = auditProvenance(ctx.origin);
    const payload = { input: ctx.input, decision, code, provenance };
    await this.#record(ctx, 'tool.denied', payload, 'denied');
    return report(ctx, outcome, { decision: d, reason });
  }

  /**
   * Input that fails the check, refused before the policy judges it. The policy is still asked,
   * without counting the call: a call it would deny is answered as that denial, so a caller
   * the policy refuses learns neither which tools are live nor what they take.
   */
  async #invalid(ctx: CallContext, problems: FieldIssue[]): Promise<ToolCallReport> {
    const call = { tool: ctx.tool, input: ctx.input };
    const d = this.#o.policy.explain(call, { decisionId: ctx.decisionId }).decision;
    this.#o.metrics?.decision(d.rule.id, d.outcome);
    const denied = await this.#denial(ctx, d);
    if (denied) return denied;
    const issues = summariseFieldIssues(problems);
    const error = errorBodyOf('invalid_input', { tool: ctx.tool, issues }, problems);
    const payload = {
      input: ctx.input,
      decision: auditDecision(d),
      code: 'invalid_input',
      problems,
      provenance: auditProvenance(ctx.origin),
    };
    await this.#record(ctx, 'tool.denied', payload, 'denied');
    return report(ctx, 'failed', { decision: d, reason: error.message, error });
  }

  async #hold(ctx: CallContext, d: PolicyDecision): Promise<ToolCallReport> {
    const summary = summarizeCall(ctx.tool, ctx.input);
    const caller = { actor: ctx.actor, ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}) };
    const pending = this.#book.add({
      tool: ctx.tool,
      input: ctx.input,
      decisionId: ctx.decisionId,
      decision: d,
      summary,
      caller,
      origin: ctx.origin,
    });
    const ticket = {
      id: pending.id,
      summary,
      expires_at: new Date(pending.expiresAt).toISOString(),
      ...heldCallAccount(pending),
    };
    const payload = {
      input: ctx.input,
      decision: auditDecision(d),
      confirmation_id: ticket.id,
      summary,
      expires_at: ticket.expires_at,
      provenance: auditProvenance(ctx.origin),
    };
    if (!(await this.#record(ctx, 'tool.confirmation_requested', payload, 'pending'))) {
      this.#book.take(pending.id);
      return auditUnavailable(ctx);
    }
    return report(ctx, 'confirmation_required', {
      decision: d,
      reason: d.reason,
      confirmation: ticket,
    });
  }

  async #run(ctx: CallContext, d: PolicyDecision, tool: RegisteredTool): Promise<ToolCallReport> {
    const deadline = Date.now() + Math.min(this.#o.callTimeoutMs, tool.spec.timeout_ms);
    if (!(await this.#recordCalled(ctx, d, deadline))) return auditUnavailable(ctx);
    const sent = performance.now();
    const reply = await this.#dispatch(ctx, deadline, d.policy_sha256);
    this.#o.metrics?.dispatch(ctx.tool, performance.now() - sent);
    // a worker's own error is content too: its backend may have written the message
    if (!reply.success) {
      const label = reply.worker === undefined ? undefined : labelOf(tool.spec, reply.error);
      return this.#failed(ctx, d, reply.error, reply, label);
    }
    const out = this.#inputs.output(tool, reply.result);
    if (!out.ok) {
      const msg = `${ctx.tool} returned a result that breaks its own output schema`;
      return this.#failed(ctx, d, errorBody('bad_reply', msg, false, out.problems), reply);
    }
    const applied = applyObligations(reply.result, d.obligations);
    if (!applied.ok)
      return this.#failed(ctx, d, errorBody('bad_reply', applied.message, false), reply);
    const payload = {
      result: applied.result,
      duration_ms: reply.duration_ms,
      worker: reply.worker,
      ...(applied.applied.length > 0 ? { obligations: applied.applied } : {}),
    };
    await this.#record(ctx, 'tool.result', payload, 'ok');
    const label = labelOf(tool.spec, applied.result);
    return report(ctx, 'ok', { decision: d, result: applied.result, label });
  }

  /**
   * The durable decision to dispatch: `tool.called`, or for a Home Assistant call
   * `service.called` with `domain.service` and the target read out (same decision id, same
   * clamping and redaction).
   */
  async #recordCalled(ctx: CallContext, d: PolicyDecision, deadline: number): Promise<boolean> {
    const provenance = auditProvenance(ctx.origin);
    const called = { input: ctx.input, decision: auditDecision(d), deadline, provenance };
    const service = ctx.tool === CALL_SERVICE_TOOL ? serviceOf(ctx.input) : undefined;
    if (service === undefined) return this.#record(ctx, 'tool.called', called, 'allowed');
    return this.#record(ctx, 'service.called', { ...called, ...service }, 'allowed');
  }

  async #dispatch(
    ctx: CallContext,
    deadline: number,
    policySha256: string,
  ): Promise<DispatchReply> {
    try {
      // a trace context makes the dispatcher send the decision id in the headers too
      return await this.#o.dispatcher.dispatch(ctx.tool, ctx.input, {
        decisionId: ctx.decisionId,
        deadline,
        traceparent: traceparentFor(ctx.decisionId),
        policySha256,
      });
    } catch (err) {
      this.#log.error({ err, tool: ctx.tool, decisionId: ctx.decisionId }, 'dispatch failed');
      const msg = `the brain could not send the call over NATS: ${(err as Error).message}`;
      const code = this.#o.dispatcher.bus().ok ? 'no_worker' : 'bus_unavailable';
      return { v: 1, success: false, error: errorBody(code, msg, true), duration_ms: 0 };
    }
  }

  async #failed(
    ctx: CallContext,
    d: PolicyDecision,
    error: ErrorBody,
    reply: DispatchReply,
    label?: ContentLabel,
  ): Promise<ToolCallReport> {
    const payload = { error, duration_ms: reply.duration_ms, worker: reply.worker };
    await this.#record(ctx, 'tool.failed', payload, 'error');
    const extra = { decision: d, reason: error.message, error };
    return report(ctx, 'failed', label === undefined ? extra : { ...extra, label });
  }

  /** Appends one row about this call; false (and logged) when the log cannot take it. */
  async #record(
    ctx: CallContext,
    type: AnyAuditEventInput['type'],
    payload: Record<string, unknown>,
    outcome: NonNullable<AnyAuditEventInput['outcome']>,
    by?: Caller,
  ): Promise<boolean> {
    const event = {
      type,
      actor: by?.actor ?? ctx.actor,
      outcome,
      decisionId: ctx.decisionId,
      sessionId: ctx.sessionId ?? null,
      tool: ctx.tool,
      payload,
    } as AnyAuditEventInput;
    const t0 = performance.now();
    try {
      await this.#o.audit.append(event);
      this.#o.metrics?.auditAppend(performance.now() - t0);
      return true;
    } catch (err) {
      const code = err instanceof AuditError ? err.code : undefined;
      this.#log.error({ err, code, type, decisionId: ctx.decisionId }, 'audit append failed');
      return false;
    }
  }

  #voided(call: PendingCall, reason: VoidReason): void {
    const ctx = contextFor(call.tool, call.input, call.decisionId, call.caller, call.origin);
    void this.#record(ctx, 'tool.rejected', { confirmation_id: call.id, reason }, 'rejected');
  }

  #count(r: ToolCallReport): ToolCallReport {
    // a metric label is a name the registry knows, never one a caller (or a model) made up
    const label = this.#o.tools.tool(r.tool) === undefined ? UNKNOWN_TOOL_LABEL : r.tool;
    this.#o.metrics?.toolCall(label, r.outcome, r.duration_ms);
    return r;
  }
}

/** The `tool` label of calls to a tool the registry does not know. */
const UNKNOWN_TOOL_LABEL = '(unknown)';
