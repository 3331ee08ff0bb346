import { z } from 'zod';
import type { AuditEventType, AuditOutcome } from './event-names.js';

export {
  AUDIT_EVENT_TYPES,
  AUDIT_OUTCOMES,
  isAuditEventType,
  isAuditOutcome,
} from './event-names.js';
export type { AuditEventType, AuditOutcome } from './event-names.js';

/**
 * The audit event catalogue: every event type, its payload schema and the outcomes it may
 * carry. This module is the single source; `docs/audit.md` documents it. Payload schemas are
 * loose objects: the named fields are required and typed, extra fields are kept (and, like
 * everything in a payload, clamped and redacted before they are stored).
 */

/** The policy decision as recorded: enough to answer "why was it allowed?" later. */
export const AuditDecisionSchema = z.looseObject({
  allowed: z.boolean(),
  reason: z.string(),
  rule: z.string().nullable(),
  policy_sha256: z.string().nullable(),
  obligations: z.array(z.unknown()).optional(),
});

const WorkerRefSchema = z.looseObject({ id: z.string(), host: z.string() });

const ToolErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
});

const toolCalled = z.looseObject({
  input: z.unknown(),
  decision: AuditDecisionSchema,
  deadline: z.number().optional(),
});

/**
 * A Home Assistant call (the `call_service` tool): `tool.called` under the event name the
 * seed ADR keeps for that shape, with the service and its target read out for queries.
 */
const serviceCalled = toolCalled.extend({
  service: z.string(),
  target: z.unknown().optional(),
  data: z.unknown().optional(),
});

const toolDenied = z.looseObject({
  input: z.unknown(),
  decision: AuditDecisionSchema,
  code: z.string(),
});

/**
 * A call whose input failed the tool's schema, which the policy did not deny (a call it would
 * deny is `tool.denied`): what the policy said, and each field at fault.
 */
const toolInputRejected = z.looseObject({
  input: z.unknown(),
  decision: AuditDecisionSchema,
  code: z.literal('invalid_input'),
  problems: z.array(z.object({ path: z.string(), message: z.string() })),
});

/**
 * A call the bus lost in flight, recovered (ADR 0099): `result` (the worker's own reply,
 * asked for on its result subject), `redispatched` (no instance had received it: an idempotent
 * tool's call sent once more) or `outcome_unknown` (it may or may not have run).
 */
const RecoveredSchema = z.object({
  how: z.enum(['result', 'redispatched', 'outcome_unknown']),
  trigger: z.string(),
  asked: z.array(z.string()).readonly(),
  instance: z.string().optional(),
});

const toolResult = z.looseObject({
  result: z.unknown(),
  duration_ms: z.number(),
  worker: WorkerRefSchema.optional(),
  recovered: RecoveredSchema.optional(),
});

const toolFailed = z.looseObject({
  error: ToolErrorSchema,
  duration_ms: z.number().optional(),
  worker: WorkerRefSchema.optional(),
  recovered: RecoveredSchema.optional(),
});

const confirmationRequested = z.looseObject({
  input: z.unknown(),
  decision: AuditDecisionSchema,
  confirmation_id: z.string(),
  summary: z.string(),
  expires_at: z.string(),
  /** The tool's preflight warnings that asked for the confirmation (ADR 0091). */
  preflight_warnings: z.array(z.string()).optional(),
});

const confirmed = z.looseObject({ confirmation_id: z.string() });

const rejected = z.looseObject({
  confirmation_id: z.string(),
  /**
   * `rejected` by a human (`stop_turn: true` when the turn was stopped with it),
   * `turn_stopped` (another call of a turn a human stopped: `stopped_with` names that
   * confirmation, ADR 0068), `expired`, `policy_reloaded`.
   */
  reason: z.enum(['rejected', 'turn_stopped', 'expired', 'policy_reloaded']),
});

const chatCompleted = z.looseObject({
  message: z.string(),
  reply: z.string(),
  iterations: z.number().int(),
  capped: z.boolean(),
  /** The client left before the answer (outcome `error`); absent otherwise. */
  cancelled: z.literal(true).optional(),
  /** Who stopped the turn by rejecting one of its calls (ADR 0068); absent otherwise. */
  stopped_by: z.string().optional(),
  planner: z.enum(['intent', 'llm', 'none']),
  tool_calls: z.array(
    z.looseObject({ tool: z.string(), decision_id: z.string(), outcome: z.string() }),
  ),
  duration_ms: z.number(),
});

/** One request a planner round made to a model: what answered, or why not. */
const llmAttempt = z.looseObject({
  provider: z.string(),
  model: z.string(),
  outcome: z.string(),
  status: z.number().int().optional(),
  duration_ms: z.number(),
});

const llmCalled = z.looseObject({
  /** The planner round within the chat turn, 1 first. */
  iteration: z.number().int(),
  /** The provider and model that answered; absent when none did. */
  provider: z.string().optional(),
  model: z.string().optional(),
  /** Tokens read and written (named so: the log redacts any key that mentions a token). */
  usage: z.looseObject({
    input: z.number().int().nonnegative(),
    output: z.number().int().nonnegative(),
  }),
  duration_ms: z.number(),
  /** Tool calls the model asked for in this round. */
  tool_calls: z.number().int().nonnegative(),
  attempts: z.array(llmAttempt),
  /** `plan_first` (ADR 0069) with the round's role; absent: a react round. */
  mode: z.literal('plan_first').optional(),
  role: z.enum(['plan', 'reply']).optional(),
  /** plan_first's reply round: calls it asked for, none of which ran. */
  not_run: z.number().int().nonnegative().optional(),
});

const policyReloaded = z.looseObject({
  path: z.string(),
  policy_sha256: z.string(),
  previous_sha256: z.string().nullable(),
  rules: z.number().int(),
});

const policyReloadFailed = z.looseObject({
  path: z.string(),
  error: z.string(),
  kept_sha256: z.string().nullable(),
});

/** A confirmed tool spec the registry did not adopt as declared (docs/adr/0007). */
const registrySpecChanged = z.looseObject({
  tool: z.string(),
  instance: z.string(),
  from_version: z.string(),
  to_version: z.string(),
  changes: z.array(z.string()),
  lowered_safety: z.boolean(),
});

/**
 * `caesar up` restarted a part of its stack (ADR 0070): the supervisor's `child_restarted`
 * message without its `type`, as the brain received it. Strict: the message is strict too,
 * and both ship in one build, so an unknown field is a bug.
 */
const workerRestarted = z.strictObject({
  /** The child's name under `caesar up`: `brain`, `nats` or the tool a worker serves. */
  name: z.string().min(1),
  kind: z.enum(['brain', 'worker', 'nats']),
  reason: z.enum(['unresponsive', 'memory', 'exited']),
  detail: z.string().max(300),
  /** Restarts of this child since `caesar up` started, this one included. */
  count: z.number().int().min(1),
  pid: z.number().int().positive().optional(),
  exit: z.strictObject({ code: z.number().int().nullable(), signal: z.string().nullable() }),
  /** When the old process ended, ISO-8601 UTC. */
  at: z.iso.datetime(),
  /** The delay before the new process starts, ms. */
  delay_ms: z.number().int().min(0),
});

const auditRetention = z.looseObject({
  retention_days: z.number(),
  cutoff: z.string(),
  deleted: z.number().int(),
  first_deleted_seq: z.number().int(),
  last_deleted_seq: z.number().int(),
  last_deleted_hash: z.string(),
});

interface CatalogueEntry<S extends z.ZodType> {
  readonly payload: S;
  /** Outcomes this type may carry; the first is the default. */
  readonly outcomes: readonly [AuditOutcome, ...AuditOutcome[]];
  /** `tool` and `decisionId` are required for events about one tool call. */
  readonly toolCall: boolean;
  /** Written only by the log itself; `append` refuses it. */
  readonly internal: boolean;
  readonly summary: string;
}

function entry<S extends z.ZodType>(e: CatalogueEntry<S>): CatalogueEntry<S> {
  return e;
}

const JobWorkerSchema = WorkerRefSchema.optional();

/** A job on the work queue (ADR 0098): its id is the submitting call's decision id. */
const jobSubmitted = z.looseObject({
  job_id: z.string(),
  delivery: z.enum(['at_most_once', 'at_least_once']),
  deadline: z.number(),
  /** The job's message in the work-queue stream (for cancelling it before it starts). */
  stream_seq: z.number(),
});

/** One run of a job: the job and which delivery of it (1, then more after a redelivery). */
const jobRun = z.looseObject({ job_id: z.string(), attempt: z.number() });

const jobStarted = jobRun.extend({ worker: JobWorkerSchema });

const jobProgress = jobRun.extend({
  fraction: z.number().optional(),
  message: z.string().optional(),
});

const jobFinished = jobRun.extend({
  result: z.unknown(),
  duration_ms: z.number(),
  worker: JobWorkerSchema,
});

const jobFailed = z.looseObject({
  job_id: z.string(),
  error: ToolErrorSchema,
  attempt: z.number().optional(),
  duration_ms: z.number().optional(),
  worker: JobWorkerSchema,
});

/**
 * The catalogue. Adding a type here (with its name in `event-names.ts`, and to docs/audit.md)
 * is the only way to add one.
 */
export const AUDIT_EVENT_CATALOGUE = {
  'tool.called': entry({
    payload: toolCalled,
    outcomes: ['allowed'],
    toolCall: true,
    internal: false,
    summary: 'the decision to dispatch, durable before the dispatch happens',
  }),
  'service.called': entry({
    payload: serviceCalled,
    outcomes: ['allowed'],
    toolCall: true,
    internal: false,
    summary:
      'tool.called for a Home Assistant call (call_service): domain.service and target, durable before the dispatch',
  }),
  'tool.denied': entry({
    payload: toolDenied,
    outcomes: ['denied'],
    toolCall: true,
    internal: false,
    summary: 'a call refused by the policy or a rate limit; never dispatched',
  }),
  'tool.input_rejected': entry({
    payload: toolInputRejected,
    outcomes: ['rejected'],
    toolCall: true,
    internal: false,
    summary:
      "a call whose input failed the tool's schema and that the policy did not deny; never dispatched",
  }),
  'tool.result': entry({
    payload: toolResult,
    outcomes: ['ok'],
    toolCall: true,
    internal: false,
    summary: 'a dispatched call that returned a result',
  }),
  'tool.failed': entry({
    payload: toolFailed,
    outcomes: ['error'],
    toolCall: true,
    internal: false,
    summary: 'a dispatched call that failed (worker error, timeout, bad reply, no worker)',
  }),
  'tool.confirmation_requested': entry({
    payload: confirmationRequested,
    outcomes: ['pending'],
    toolCall: true,
    internal: false,
    summary: 'a call held for human approval',
  }),
  'tool.confirmed': entry({
    payload: confirmed,
    outcomes: ['confirmed'],
    toolCall: true,
    internal: false,
    summary: 'a held call approved; a tool.called row follows before dispatch',
  }),
  'tool.rejected': entry({
    payload: rejected,
    outcomes: ['rejected'],
    toolCall: true,
    internal: false,
    summary: 'a held call rejected, expired or voided by a policy reload',
  }),
  'job.submitted': entry({
    payload: jobSubmitted,
    outcomes: ['pending'],
    toolCall: true,
    internal: false,
    summary:
      'a call that runs as a job, put on the work queue after its tool.called row (ADR 0098)',
  }),
  'job.started': entry({
    payload: jobStarted,
    outcomes: ['ok'],
    toolCall: true,
    internal: false,
    summary: 'a worker took a job and started it (again after a redelivery: attempt > 1)',
  }),
  'job.progress': entry({
    payload: jobProgress,
    outcomes: ['ok'],
    toolCall: true,
    internal: false,
    summary: 'how far a running job is, as its worker said',
  }),
  'job.finished': entry({
    payload: jobFinished,
    outcomes: ['ok'],
    toolCall: true,
    internal: false,
    summary: 'a job ended with its result',
  }),
  'job.failed': entry({
    payload: jobFailed,
    outcomes: ['error'],
    toolCall: true,
    internal: false,
    summary:
      'a job ended without a result: its error, a cancellation (job_cancelled) or a lost worker (worker_lost)',
  }),
  'chat.completed': entry({
    payload: chatCompleted,
    outcomes: ['ok', 'error'],
    toolCall: false,
    internal: false,
    summary: 'one chat turn answered (or failed), with the calls it made',
  }),
  'llm.called': entry({
    payload: llmCalled,
    outcomes: ['ok', 'error'],
    toolCall: false,
    internal: false,
    summary:
      'one planner round: the model that answered, tokens in and out, time, retries and failovers (never a key)',
  }),
  'policy.reloaded': entry({
    payload: policyReloaded,
    outcomes: ['ok'],
    toolCall: false,
    internal: false,
    summary: 'a new policy file took effect',
  }),
  'policy.reload_failed': entry({
    payload: policyReloadFailed,
    outcomes: ['error'],
    toolCall: false,
    internal: false,
    summary: 'a policy edit was refused; the last good policy stays',
  }),
  'registry.spec_changed': entry({
    payload: registrySpecChanged,
    outcomes: ['rejected'],
    toolCall: false,
    internal: false,
    summary:
      'a tool instance claimed a spec the registry did not adopt: another spec under a known id, or one that lowers safety',
  }),
  'worker.restarted': entry({
    payload: workerRestarted,
    outcomes: ['error'],
    toolCall: false,
    internal: false,
    summary:
      'caesar up killed or lost a child (brain, nats or a worker) and restarted it: why, how it ended, the count',
  }),
  'audit.retention': entry({
    payload: auditRetention,
    outcomes: ['ok'],
    toolCall: false,
    internal: true,
    summary: 'a retention sweep deleted the oldest rows; carries the chain anchor',
  }),
} as const satisfies Record<AuditEventType, CatalogueEntry<z.ZodType>>;

type Catalogue = typeof AUDIT_EVENT_CATALOGUE;

/** The payload an event of type `T` carries, as its writer builds it. */
export type AuditPayload<T extends AuditEventType> = z.input<Catalogue[T]['payload']>;

/** Event types a caller may append (everything but the log's own `audit.retention`). */
export type AppendableEventType = Exclude<AuditEventType, 'audit.retention'>;

/**
 * Every appendable event type and the payload it takes, mapped over the catalogue: a writer
 * names the type and its payload is checked against that type's schema at compile time (a
 * missing or misspelt required key, or a value of the wrong type, does not compile).
 */
export type AuditPayloads = { readonly [T in AppendableEventType]: AuditPayload<T> };

/** One event as the brain hands it to `append`. The log stamps `seq`, `ts` and hashes. */
export interface AuditEventInput<T extends AuditEventType = AuditEventType> {
  type: T;
  /** Who asked: an API token's name (`token:ops`), `cli`, or a trigger name. */
  actor: string;
  /**
   * The principal the caller was judged as (ADR 0096): the verified token's, or its name for
   * a token without one. Absent for rows of no caller (a policy reload, the retention sweep).
   */
  principal?: string | null;
  /** Defaults to the type's first outcome in the catalogue. */
  outcome?: AuditOutcome;
  decisionId?: string | null;
  sessionId?: string | null;
  tool?: string | null;
  payload: AuditPayload<T>;
}

/** Any appendable event: a union over the catalogue so `type` narrows `payload`. */
export type AnyAuditEventInput = {
  [T in AppendableEventType]: AuditEventInput<T>;
}[AppendableEventType];

/** The catalogue entry of a type, typed loosely for generic code. */
export function catalogueEntry(type: AuditEventType): CatalogueEntry<z.ZodType> {
  return AUDIT_EVENT_CATALOGUE[type];
}
