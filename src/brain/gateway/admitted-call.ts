import { normalizeServiceCall, type NormalizeResult } from '../../policy/index.js';
import type { CallServiceInput, FieldIssue } from '../../protocol/index.js';
import type { Principal } from '../../policy/index.js';
import type { RegisteredTool } from '../registry/index.js';
import type { ToolInputCheck } from './input-check.js';
import { auditProvenance, type AuditProvenance } from './provenance.js';
import type { CallContext } from './records.js';
import { summarizeCall } from './summary.js';

/**
 * A `call_service` input as the brain reads it, once: parsed by its own schema (typed), read
 * out for the `service.called` row, and normalised the way the policy judges it.
 */
export interface ServiceView {
  readonly input: CallServiceInput;
  /** The policy's reading (`normalizeServiceCall`), or why the call is malformed. */
  readonly normalized: NormalizeResult;
  /** `domain.service` and the target and data, as `service.called` records them. */
  readonly row: ServiceRow;
}

export interface ServiceRow {
  readonly service: string;
  readonly target?: unknown;
  readonly data?: unknown;
}

/**
 * A call past the brain's one input check (ADR 0045), read once at the gateway's edge (ADR
 * 0078): the live tool, the `call_service` view, the deadline, and (made when first asked)
 * the summary and the audit rows' provenance. Policy, dispatch, audit rows and reports take
 * this value; nothing after the edge reads the raw input again to learn what it is.
 */
export interface AdmittedCall extends CallContext {
  /** The live tool; undefined when no worker serves it. */
  readonly live: RegisteredTool | undefined;
  /** For `call_service`: its input as the brain reads it. */
  readonly service: ServiceView | undefined;
  /**
   * When the call must be answered, epoch ms: the brain's call timeout, cut by the live
   * tool's own `timeout_ms`. Computed here only; the envelope carries it to the worker.
   * Undefined when no worker serves the tool.
   */
  readonly deadline: number | undefined;
  /** One line saying what the call would do (a confirmation shows it). */
  readonly summary: string;
  /** Who asked and what a model had read, as the call's audit rows carry it. */
  readonly provenance: AuditProvenance;
}

export type Admission = { ok: true; call: AdmittedCall } | { ok: false; problems: FieldIssue[] };

/**
 * Checks a call's input once and reads it into an AdmittedCall, or says which fields are
 * wrong. `callTimeoutMs` is the brain's deadline for one call.
 */
export function admit(
  ctx: CallContext,
  live: RegisteredTool | undefined,
  check: ToolInputCheck,
  callTimeoutMs: number,
): Admission {
  const checked = check.input(ctx.tool, live, ctx.input);
  if (!checked.ok) return checked;
  const service = checked.service === undefined ? undefined : serviceView(checked.service);
  const deadline =
    live === undefined ? undefined : Date.now() + Math.min(callTimeoutMs, live.spec.timeout_ms);
  return { ok: true, call: new Admitted(ctx, live, service, deadline) };
}

/** The view of a `call_service` input its own schema has parsed. */
export function serviceView(input: CallServiceInput): ServiceView {
  const row: ServiceRow = {
    service: `${input.domain}.${input.service}`,
    ...(input.target == null ? {} : { target: input.target }),
    ...(input.data == null ? {} : { data: input.data }),
  };
  return { input, normalized: normalizeServiceCall(input), row };
}

class Admitted implements AdmittedCall {
  readonly tool: string;
  readonly input: unknown;
  readonly decisionId: string;
  readonly actor: string;
  readonly principal: Principal;
  readonly sessionId: string | undefined;
  readonly origin: CallContext['origin'];
  readonly started: number;
  #summary: string | undefined;
  #provenance: AuditProvenance | undefined;

  constructor(
    ctx: CallContext,
    readonly live: RegisteredTool | undefined,
    readonly service: ServiceView | undefined,
    readonly deadline: number | undefined,
  ) {
    this.tool = ctx.tool;
    this.input = ctx.input;
    this.decisionId = ctx.decisionId;
    this.actor = ctx.actor;
    this.principal = ctx.principal;
    this.sessionId = ctx.sessionId;
    this.origin = ctx.origin;
    this.started = ctx.started;
  }

  // made when first read: most calls are neither held nor denied, and every allowed one
  // reads the provenance once
  get summary(): string {
    return (this.#summary ??= summarizeCall(this.tool, this.input, this.service?.input));
  }

  get provenance(): AuditProvenance {
    return (this.#provenance ??= auditProvenance(this.origin));
  }
}
