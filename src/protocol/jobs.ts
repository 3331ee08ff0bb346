import { z } from 'zod';
import { ErrorBodySchema } from './envelope.js';
import { ToolNameSchema } from './names.js';
import { JobDeliverySchema, type JobDelivery, type ToolSpec } from './toolspec.js';

/**
 * The wire of jobs (ADR 0098): what the brain puts on the work queue, and what a worker says
 * about a job it holds. A job's id is the decision id of the call that submitted it, so its
 * audit rows (`tool.called`, `job.submitted`, `job.progress`, `job.finished`/`job.failed`)
 * share one id.
 */

/** Largest result a job may end with, JSON bytes; a larger one fails as `result_too_large`. */
export const MAX_JOB_RESULT_BYTES = 64 * 1024;
/** Largest progress message, characters. */
export const MAX_JOB_PROGRESS_CHARS = 200;

const JobIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const WorkerRefSchema = z.object({ id: z.string().max(128), host: z.string().max(256) });

/** One job on the work queue: the call as decided, with the brain's grant (ADR 0052). */
export const JobEnvelopeSchema = z.object({
  v: z.literal(1),
  job_id: JobIdSchema,
  tool: ToolNameSchema,
  input: z.unknown(),
  decision_id: JobIdSchema,
  /** Epoch ms by which the job must have ended (queue time included); the grant binds it. */
  deadline: z.number().int().positive(),
  grant: z.string().max(512).optional(),
  delivery: JobDeliverySchema,
  /** Epoch ms. */
  submitted_at: z.number().int().positive(),
});
export type JobEnvelope = z.infer<typeof JobEnvelopeSchema>;

const ProgressSchema = z.object({
  /** 0..1, when the tool can say how far it is. */
  fraction: z.number().min(0).max(1).optional(),
  message: z.string().max(MAX_JOB_PROGRESS_CHARS).optional(),
});
export type JobProgress = z.infer<typeof ProgressSchema>;

const EventBase = {
  v: z.literal(1),
  job_id: JobIdSchema,
  tool: ToolNameSchema,
  worker: WorkerRefSchema,
  /** Which delivery of the job this is (1 first; more after a redelivery). */
  attempt: z.number().int().positive(),
  /** Epoch ms, the worker's clock. */
  at: z.number().int().positive(),
};

/** What a worker says about a job it holds, on `caesar.job.event.<tool>.<job id>`. */
export const JobEventSchema = z.discriminatedUnion('kind', [
  z.object({ ...EventBase, kind: z.literal('started') }),
  z.object({ ...EventBase, kind: z.literal('progress'), progress: ProgressSchema }),
  z.object({
    ...EventBase,
    kind: z.literal('finished'),
    result: z.unknown(),
    duration_ms: z.number().nonnegative(),
  }),
  z.object({
    ...EventBase,
    kind: z.literal('failed'),
    error: ErrorBodySchema,
    duration_ms: z.number().nonnegative(),
  }),
]);
export type JobEvent = z.infer<typeof JobEventSchema>;

/** A running job's heartbeat, on `caesar.job.heartbeat.<tool>.<job id>` (core NATS, not kept). */
export const JobHeartbeatSchema = z.object({
  v: z.literal(1),
  job_id: JobIdSchema,
  worker: WorkerRefSchema,
  at: z.number().int().positive(),
});
export type JobHeartbeat = z.infer<typeof JobHeartbeatSchema>;

/**
 * Does a call to this tool run as a job? When its spec says `execution_locality:
 * remote_job`, or a typical call (`expected_wall_clock_ms`) takes longer than the brain's
 * call deadline.
 */
export function runsAsJob(
  spec: Pick<ToolSpec, 'execution_locality' | 'resource_requirements'>,
  callTimeoutMs: number,
): boolean {
  if (spec.execution_locality === 'remote_job') return true;
  const expected = spec.resource_requirements.expected_wall_clock_ms;
  return expected !== undefined && expected > callTimeoutMs;
}

/**
 * Could a worker's tool be asked to run as a job by some brain? The worker then takes jobs
 * for it: a `remote_job` tool, one with a `job` block, or one that declares its wall clock.
 */
export function mayRunAsJob(
  spec: Pick<ToolSpec, 'execution_locality' | 'resource_requirements' | 'job'>,
): boolean {
  return (
    spec.execution_locality === 'remote_job' ||
    spec.job !== undefined ||
    spec.resource_requirements.expected_wall_clock_ms !== undefined
  );
}

/** A job tool's delivery: its spec's, else `at_most_once` (it never runs twice). */
export function jobDelivery(spec: Pick<ToolSpec, 'job'>): JobDelivery {
  return spec.job?.delivery ?? 'at_most_once';
}
