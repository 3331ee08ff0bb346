import {
  AuditError,
  type AppendableEventType,
  type AuditEventInput,
  type AuditPayload,
} from '../../audit/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import {
  callerText,
  describeAudience,
  inAudience,
  OUTCOME_ERROR_CODES,
  type EvaluateContext,
  type Principal,
  type FlowContext,
  type PolicyDecision,
  type PolicyExplanation,
} from '../../policy/index.js';
import { errorMessage } from '../../errors/index.js';
import {
  InvalidInputError,
  specEffects,
  summariseFieldIssues,
  type ErrorBody,
  type FieldIssue,
  servedName,
  jobDelivery,
  runsAsJob,
} from '../../protocol/index.js';
import {
  principalOf,
  type Caller,
  type ExplainFlow,
  type PendingConfirmation,
  type ToolCallReport,
} from '../api/index.js';
import type { Dispatcher, DispatchResult } from '../dispatch/index.js';
import { ConfirmationBook, type PendingCall, type VoidReason } from './confirmations.js';
import { ApproverRequiredError, ConfirmationNotFoundError } from './errors.js';
import { heldCallAccount, pendingView } from './held-call.js';
import { newDecisionId, traceparentFor } from './ids.js';
import { applyObligations, unknownObligation } from './obligations.js';
import type {
  AuditSink,
  GatewayMetrics,
  PolicySource,
  JobLimits,
  JobSink,
  PreflightSource,
  ToolSource,
} from './ports.js';
import {
  auditDecision,
  auditUnavailable,
  contextFor,
  errorBodyOf,
  report,
  type CallContext,
} from './records.js';
import { admit, type AdmittedCall } from './admitted-call.js';
import { ToolInputCheck } from './input-check.js';
import {
  API_ORIGIN,
  auditProvenance,
  flowContextOf,
  labelOf,
  type AuditProvenance,
  type CallOrigin,
  type ContentLabel,
} from './provenance.js';

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
  /**
   * The catalog file that lists `tool` as planned (a stub, ADR 0090), else undefined: a call
   * to a planned tool no worker serves is refused before the policy judges it. @default none
   */
  plannedIn?: (tool: string) => string | undefined;
  /**
   * Tools' current preflight answers: a call the policy allows whose tool's preflight warns
   * waits for a human, the warnings on its confirmation (ADR 0091). Unset: not asked.
   */
  preflight?: PreflightSource;
  /**
   * The job queue (ADR 0098): a call whose tool runs as a job (`remote_job`, or a typical
   * call longer than `callTimeoutMs`) is submitted there, not dispatched. Unset: dispatched.
   */
  jobs?: JobSink;
  /** The operator's limits on jobs (`tools.limits`), checked at submission. */
  jobLimits?: JobLimits;
  metrics?: GatewayMetrics;
  logger?: Logger;
}

/**
 * The one path every tool call takes, from chat or the API: live tool -> input checked once
 * -> policy -> `tool.called` made durable -> dispatch with a deadline -> reply schema ->
 * obligations -> `tool.result` / `tool.failed`. Policy refusals append `tool.denied`, input
 * that fails the tool's schema `tool.input_rejected`. Every step
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
    const ctx = contextFor(this.#served(tool), input, newDecisionId(), caller, origin);
    const planned = await this.#planned(ctx);
    if (planned) return this.#count(planned);
    const admitted = this.#admit(ctx);
    if (!admitted.ok) return this.#count(await this.#invalid(ctx, admitted.problems));
    const call = admitted.call;
    const decision = this.#decide(call, false);
    const refused = await this.#refusal(call, decision);
    if (refused) return this.#count(refused);
    const warnings = await this.#preflightWarnings(call.tool);
    if (decision.outcome === 'confirm') {
      return this.#count(await this.#hold(call, decision, warnings));
    }
    if (warnings.length > 0) {
      return this.#count(await this.#hold(call, preflightAsks(call.tool, decision), warnings));
    }
    return this.#count(await this.#run(call, decision));
  }

  /**
   * Approves (runs once) or rejects a call waiting for confirmation. An approved call is
   * judged again with `confirmed: true` (so rate limits still apply) and checked against
   * the tool as it is now. A rejection with `stopTurn` says so in its row and its reason:
   * the caller stops the call's turn too (ADR 0068). When the held call's rule names
   * `approvers:`, only a caller in them decides it, either way (ADR 0096).
   * @throws ConfirmationNotFoundError when the id is unknown, used, expired or voided.
   * @throws ApproverRequiredError when the caller is not among the rule's approvers; the call
   * stays pending.
   */
  async confirm(
    id: string,
    approve: boolean,
    caller: Caller,
    options: { stopTurn?: boolean } = {},
  ): Promise<ToolCallReport> {
    this.#mayDecide(id, principalOf(caller));
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
      const row = { ...by, reason: 'rejected' as const, ...stop };
      await this.#record(ctx, 'tool.rejected', row, 'rejected', caller);
      const why = `rejected by ${caller.actor}${options.stopTurn === true ? ', who stopped the turn' : ''}`;
      return this.#count(report(ctx, 'rejected', { reason: why }));
    }
    if (!(await this.#record(ctx, 'tool.confirmed', by, 'confirmed', caller))) {
      return this.#count(auditUnavailable(ctx));
    }
    // the tool may have changed since the call was held: check it against the tool as it is now
    const admitted = this.#admit(ctx);
    if (!admitted.ok) return this.#count(await this.#invalid(ctx, admitted.problems));
    const call = admitted.call;
    const decision = this.#decide(call, true);
    const refused = await this.#refusal(call, decision);
    if (refused) return this.#count(refused);
    if (decision.outcome !== 'allow') {
      return this.#count(await this.#deny(call, decision, 'denied', decision.reason));
    }
    return this.#count(await this.#run(call, decision));
  }

  /** Throws ApproverRequiredError when the held call's approvers do not include `who`. */
  #mayDecide(id: string, who: Principal): void {
    const held = this.#book.peek(id);
    const approvers = held?.decision.approvers;
    if (held === undefined || approvers === undefined) return;
    const audience = {
      principals: new Set(approvers.principals),
      groups: new Set(approvers.groups),
    };
    if (inAudience(audience, who)) return;
    const rule = `${held.decision.rule.id} (${held.decision.rule.file}:${held.decision.rule.line})`;
    throw new ApproverRequiredError(id, describeAudience(audience), rule, callerText(who));
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
      reason: 'turn_stopped' as const,
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
  explain(
    tool: string,
    input: unknown,
    flow?: ExplainFlow,
    principal?: Principal,
  ): PolicyExplanation {
    const admitted = this.#admit(contextFor(this.#served(tool), input, '', { actor: '' }));
    if (!admitted.ok) {
      const issues = summariseFieldIssues(admitted.problems);
      const message = errorMessage('invalid_input', { tool, issues });
      throw new InvalidInputError(message, { tool, details: admitted.problems });
    }
    const service = admitted.call.service?.normalized;
    const ctx: EvaluateContext = service === undefined ? {} : { service };
    if (admitted.call.live !== undefined) ctx.action = true;
    if (principal !== undefined) ctx.principal = principal;
    if (flow === undefined) return this.#o.policy.explain({ tool, input }, ctx);
    const context: FlowContext = {
      afterUntrusted: flow.after_untrusted,
      afterPrivate: flow.after_private,
      sharesPrivateWords: flow.shares_private_words,
      ...specEffects(tool, admitted.call.live?.spec),
    };
    return this.#o.policy.explain({ tool, input }, { ...ctx, flow: context });
  }

  /** Voids calls confirmed under an older policy; the daemon calls it on every reload. */
  policyReloaded(sha256: string): void {
    const n = this.#book.voidStale(sha256);
    if (n > 0) this.#log.info({ voided: n }, 'policy reloaded: pending confirmations voided');
  }

  close(): void {
    this.#book.close();
  }

  /**
   * The name a call goes out under: as called, unless no worker serves that name and one
   * serves the other name of the same Home Assistant callable (`call_service` and
   * `home_assistant.call_service`, `ha_entities` and `home_assistant.entities`; ADR 0093).
   * An intents file or a model that names either reaches whichever the operator runs; the
   * audit row names the one that ran.
   */
  #served(tool: string): string {
    return servedName(tool, (name) => this.#o.tools.tool(name) !== undefined);
  }

  /** The edge: the live tool, then the one input check and the one reading of the call. */
  #admit(ctx: CallContext) {
    const live = this.#o.tools.tool(ctx.tool);
    return admit(ctx, live, this.#inputs, this.#o.callTimeoutMs);
  }

  #decide(call: AdmittedCall, confirmed: boolean): PolicyDecision {
    const ctx: EvaluateContext = {
      decisionId: call.decisionId,
      confirmed,
      principal: call.principal,
    };
    const flow = flowContextOf(call.origin, call.tool, call.live?.spec ?? null, call.input);
    if (flow !== undefined) ctx.flow = flow;
    // normalised once, at the edge: the policy judges the view the audit row records
    if (call.service !== undefined) ctx.service = call.service.normalized;
    // a registered tool's dotted name is one of its actions, never a Home Assistant service
    if (call.live !== undefined) ctx.action = true;
    let d = this.#o.policy.evaluate({ tool: call.tool, input: call.input }, ctx);
    if (d.outcome === 'allow' && !confirmed && call.live?.spec.hitl === 'confirm') {
      d = {
        ...d,
        allowed: false,
        outcome: 'confirm',
        reason: `${call.tool} declares that a human confirms each call (hitl: confirm); ${d.reason}`,
      };
    }
    this.#o.metrics?.decision(d.rule.id, d.outcome);
    return d;
  }

  /** The refusals that end a call before anything runs; undefined when it may go on. */
  async #refusal(ctx: AdmittedCall, d: PolicyDecision): Promise<ToolCallReport | undefined> {
    const denied = await this.#denial(ctx, d);
    if (denied) return denied;
    const unknown = unknownObligation(d.obligations);
    if (unknown !== undefined) {
      const why = `the policy attaches obligation '${unknown}', which this brain cannot apply`;
      return this.#deny(ctx, d, 'denied', why);
    }
    // with the bus down the registry may have lost the tool: the bus is the reason
    if (ctx.live === undefined) {
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

  /**
   * `tool_planned` for a tool the catalog lists as planned and no worker serves: recorded as
   * `tool.failed`, never judged, never sent. Undefined for any other tool.
   */
  async #planned(ctx: CallContext): Promise<ToolCallReport | undefined> {
    const file = this.#o.plannedIn?.(ctx.tool);
    if (file === undefined || this.#o.tools.tool(ctx.tool) !== undefined) return undefined;
    const error = errorBodyOf('tool_planned', { tool: ctx.tool, file });
    const provenance = auditProvenance(ctx.origin);
    await this.#record(ctx, 'tool.failed', { error, input: ctx.input, provenance }, 'error');
    return report(ctx, 'failed', { reason: error.message, error });
  }

  #start(tool: string): string {
    return this.#o.startStep?.(tool) ?? `start it: \`caesar legion serve-tool ${tool}\``;
  }

  /** `tool.denied` for a decision that denies or rate-limits; undefined for any other. */
  async #denial(ctx: Refusable, d: PolicyDecision): Promise<ToolCallReport | undefined> {
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
    ctx: Refusable,
    d: PolicyDecision,
    code: string,
    reason: string,
    outcome: 'denied' | 'rate_limited' = 'denied',
  ): Promise<ToolCallReport> {
    const decision = { ...auditDecision(d), reason };
    const payload = { input: ctx.input, decision, code, provenance: ctx.provenance };
    await this.#record(ctx, 'tool.denied', payload, 'denied');
    return report(ctx, outcome, { decision: d, reason });
  }

  /**
   * Input that fails the check, refused before the policy judges it. The policy is still asked,
   * without counting the call: a call it would deny is answered as that denial, so a caller
   * the policy refuses learns neither which tools are live nor what they take.
   */
  async #invalid(arrived: CallContext, problems: FieldIssue[]): Promise<ToolCallReport> {
    const ctx = { ...arrived, provenance: auditProvenance(arrived.origin) };
    const call = { tool: ctx.tool, input: ctx.input };
    const action = this.#o.tools.tool(ctx.tool) !== undefined;
    const explained = { decisionId: ctx.decisionId, action, principal: ctx.principal };
    const d = this.#o.policy.explain(call, explained).decision;
    this.#o.metrics?.decision(d.rule.id, d.outcome);
    const denied = await this.#denial(ctx, d);
    if (denied) return denied;
    const issues = summariseFieldIssues(problems);
    const error = errorBodyOf('invalid_input', { tool: ctx.tool, issues }, problems);
    const payload = {
      input: ctx.input,
      decision: auditDecision(d),
      code: 'invalid_input' as const,
      problems,
      provenance: ctx.provenance,
    };
    await this.#record(ctx, 'tool.input_rejected', payload, 'rejected');
    return report(ctx, 'failed', { decision: d, reason: error.message, error });
  }

  /** The warnings of the tool's current preflight; none when it has no answer or none is asked. */
  async #preflightWarnings(tool: string): Promise<readonly string[]> {
    const preflight = this.#o.preflight;
    if (preflight === undefined) return [];
    try {
      const r = await preflight.get(tool);
      return 'reply' in r ? r.reply.warnings : [];
    } catch (err) {
      this.#log.warn({ err, tool }, 'preflight lookup failed');
      return [];
    }
  }

  async #hold(
    ctx: AdmittedCall,
    d: PolicyDecision,
    preflightWarnings: readonly string[],
  ): Promise<ToolCallReport> {
    const summary = ctx.summary;
    const caller = {
      actor: ctx.actor,
      principal: ctx.principal,
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
    };
    const pending = this.#book.add({
      tool: ctx.tool,
      input: ctx.input,
      decisionId: ctx.decisionId,
      decision: d,
      summary,
      caller,
      origin: ctx.origin,
      preflightWarnings,
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
      provenance: ctx.provenance,
      ...(preflightWarnings.length === 0 ? {} : { preflight_warnings: [...preflightWarnings] }),
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

  /** A call the policy allowed, to a live tool (`#refusal` answered any other). */
  async #run(ctx: AdmittedCall, d: PolicyDecision): Promise<ToolCallReport> {
    const tool = ctx.live!;
    if (this.#o.jobs !== undefined && runsAsJob(tool.spec, this.#o.callTimeoutMs)) {
      return this.#submit(ctx, d, this.#o.jobs);
    }
    const deadline = ctx.deadline!;
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
      const reason = 'its result breaks its own output schema';
      const error = errorBodyOf('bad_reply', { tool: ctx.tool, reason }, out.problems);
      return this.#failed(ctx, d, error, reply);
    }
    const applied = applyObligations(reply.result, d.obligations);
    if (!applied.ok) {
      const error = errorBodyOf('bad_reply', { tool: ctx.tool, reason: applied.message });
      return this.#failed(ctx, d, error, reply);
    }
    const payload = {
      result: applied.result,
      duration_ms: reply.duration_ms,
      worker: reply.worker,
      ...(applied.applied.length > 0 ? { obligations: applied.applied } : {}),
      ...(reply.recovery === undefined ? {} : { recovered: reply.recovery }),
    };
    await this.#record(ctx, 'tool.result', payload, 'ok');
    const label = labelOf(tool.spec, applied.result);
    return report(ctx, 'ok', { decision: d, result: applied.result, label });
  }

  /**
   * A job (ADR 0098): the operator's limits, then `tool.called` (durable), then the work
   * queue and `job.submitted`; answered at once with the job's id, its end comes later.
   */
  async #submit(ctx: AdmittedCall, d: PolicyDecision, jobs: JobSink): Promise<ToolCallReport> {
    const spec = ctx.live!.spec;
    const limited = jobLimitReached(ctx.tool, spec.timeout_ms, jobs, this.#o.jobLimits ?? {});
    if (limited !== undefined) {
      return this.#undispatched(ctx, d, errorBodyOf('job_limit_reached', limited));
    }
    const deadline = Date.now() + (this.#o.jobLimits?.maxQueueMs ?? DAY_MS) + spec.timeout_ms;
    if (!(await this.#recordCalled(ctx, d, deadline))) return auditUnavailable(ctx);
    let job: { id: string; status: string };
    try {
      job = await jobs.submit({
        jobId: ctx.decisionId,
        tool: ctx.tool,
        input: ctx.input,
        deadline,
        delivery: jobDelivery(spec),
        policySha256: d.policy_sha256,
        actor: ctx.actor,
        principal: ctx.principal.name,
        sessionId: ctx.sessionId ?? null,
      });
    } catch (err) {
      this.#log.error({ err, tool: ctx.tool, decisionId: ctx.decisionId }, 'job submission failed');
      const why = `the job queue did not take it: ${(err as Error).message}`;
      const error = errorBodyOf('bus_unavailable', { why, tool: ctx.tool });
      return this.#failed(ctx, d, error, { v: 1, success: false, error, duration_ms: 0 });
    }
    const ref = { job_id: job.id, status: job.status };
    // what a model (or a client) reads back: only what is delivered (ADR 0100): a chat's
    // conversation is told the end at its next message; an API caller asks for it
    const note =
      ctx.sessionId === undefined
        ? `started job ${job.id}; it runs in the background, and GET /v1/jobs/${job.id} (caesar jobs show ${job.id}) says how it goes and, once it ends, its result`
        : `started job ${job.id}; it runs in the background. When it has ended, the next message in this conversation opens with how it ended; until then job_status with this job_id says how it goes`;
    return report(ctx, 'ok', { decision: d, result: { ...ref, note }, job: ref });
  }

  /**
   * The durable decision to dispatch: `tool.called`, or for a Home Assistant call
   * `service.called` with `domain.service` and the target read out (same decision id, same
   * clamping and redaction).
   */
  async #recordCalled(ctx: AdmittedCall, d: PolicyDecision, deadline: number): Promise<boolean> {
    const provenance = ctx.provenance;
    const called = { input: ctx.input, decision: auditDecision(d), deadline, provenance };
    const service = ctx.service?.row;
    if (service === undefined) return this.#record(ctx, 'tool.called', called, 'allowed');
    return this.#record(ctx, 'service.called', { ...called, ...service }, 'allowed');
  }

  async #dispatch(
    ctx: CallContext,
    deadline: number,
    policySha256: string,
  ): Promise<DispatchResult> {
    try {
      // a trace context makes the dispatcher send the decision id in the headers too
      const reply = await this.#o.dispatcher.dispatch(ctx.tool, ctx.input, {
        decisionId: ctx.decisionId,
        deadline,
        traceparent: traceparentFor(ctx.decisionId),
        policySha256,
      });
      // NATS said no one serves it (the last instance left after the registry saw it):
      // the catalogue's words, with the step that starts it on this stack
      if (!reply.success && reply.error.code === 'no_worker') {
        const start = this.#start(ctx.tool);
        return { ...reply, error: errorBodyOf('no_worker', { tool: ctx.tool, start }) };
      }
      return reply;
    } catch (err) {
      this.#log.error({ err, tool: ctx.tool, decisionId: ctx.decisionId }, 'dispatch failed');
      // a closed or draining connection is the bus being down; anything else (the server
      // refused the brain's publish) is a fault of the brain's own setup, not of the call
      const why = (err as Error).message;
      const error = this.#o.dispatcher.bus().ok
        ? errorBodyOf('internal', { reason: `the brain could not send the call over NATS: ${why}` })
        : errorBodyOf('bus_unavailable', { why, tool: ctx.tool });
      return { v: 1, success: false, error, duration_ms: 0 };
    }
  }

  async #failed(
    ctx: CallContext,
    d: PolicyDecision,
    error: ErrorBody,
    reply: DispatchResult,
    label?: ContentLabel,
  ): Promise<ToolCallReport> {
    const payload = {
      error,
      duration_ms: reply.duration_ms,
      worker: reply.worker,
      ...(reply.recovery === undefined ? {} : { recovered: reply.recovery }),
    };
    await this.#record(ctx, 'tool.failed', payload, 'error');
    const extra = { decision: d, reason: error.message, error };
    return report(ctx, 'failed', label === undefined ? extra : { ...extra, label });
  }

  /**
   * Appends one row about this call; false (and logged) when the log cannot take it. The
   * payload's type follows from `type` (the audit catalogue): a wrong key does not compile.
   */
  async #record<T extends AppendableEventType>(
    ctx: CallContext,
    type: T,
    payload: AuditPayload<T>,
    outcome: NonNullable<AuditEventInput['outcome']>,
    by?: Caller,
  ): Promise<boolean> {
    const event: AuditEventInput<T> = {
      type,
      actor: by?.actor ?? ctx.actor,
      principal: by === undefined ? ctx.principal.name : principalOf(by).name,
      outcome,
      decisionId: ctx.decisionId,
      sessionId: ctx.sessionId ?? null,
      tool: ctx.tool,
      payload,
    };
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

const DAY_MS = 24 * 3600_000;

/** The limit a new job of `tool` would pass, as the catalogue's parameters; else undefined. */
function jobLimitReached(
  tool: string,
  timeoutMs: number,
  jobs: JobSink,
  limits: JobLimits,
): { tool: string; limit: string } | undefined {
  if (limits.maxWallClockMs !== undefined && timeoutMs > limits.maxWallClockMs) {
    const limit = `tools.limits.max_wall_clock is ${limits.maxWallClockMs} ms and the tool may run ${timeoutMs} ms (its timeout_ms)`;
    return { tool, limit };
  }
  if (limits.maxPerTool !== undefined && jobs.activeCount(tool) >= limits.maxPerTool) {
    return {
      tool,
      limit: `tools.limits.max_concurrent_jobs_per_tool is ${limits.maxPerTool}, and that many of its jobs are queued or running`,
    };
  }
  if (limits.maxTotal !== undefined && jobs.activeCount() >= limits.maxTotal) {
    return {
      tool,
      limit: `tools.limits.max_concurrent_jobs is ${limits.maxTotal}, and that many jobs are queued or running`,
    };
  }
  return undefined;
}

/** A call about to be refused: its facts and the provenance its `tool.denied` row carries. */
type Refusable = CallContext & { readonly provenance: AuditProvenance };

/** The `tool` label of calls to a tool the registry does not know. */
const UNKNOWN_TOOL_LABEL = '(unknown)';

/**
 * A call the policy allowed, held because its tool's preflight warns (ADR 0091): the reason
 * says that the preflight asked, not the policy, and keeps the policy's own words.
 */
function preflightAsks(tool: string, d: PolicyDecision): PolicyDecision {
  return {
    ...d,
    allowed: false,
    outcome: 'confirm',
    reason: `the preflight of ${tool} warns (see preflight_warnings), so a human confirms the call; the policy allowed it: ${d.reason}`,
  };
}
