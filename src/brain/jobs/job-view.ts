import type { AuditRecord } from '../../audit/index.js';

/** Where a job is (ADR 0098). */
export type JobStatus = 'queued' | 'running' | 'finished' | 'failed' | 'cancelled';

export const JOB_EVENT_TYPES = [
  'job.submitted',
  'job.started',
  'job.progress',
  'job.finished',
  'job.failed',
] as const;

/** One job as `GET /v1/jobs/{id}` and `caesar jobs show` show it. */
export interface JobView {
  id: string;
  tool: string;
  status: JobStatus;
  delivery: 'at_most_once' | 'at_least_once';
  /** Who submitted it (the audit row's actor). */
  actor: string;
  session_id?: string;
  /** ISO-8601 UTC. */
  submitted_at: string;
  started_at?: string;
  ended_at?: string;
  /** Which delivery ran (or runs) it: 1 first, more after a redelivery. */
  attempt?: number;
  progress?: { fraction?: number; message?: string; at: string };
  worker?: { id: string; host: string };
  result?: unknown;
  error?: { code: string; message: string; retryable: boolean };
  /** The job's message in the work-queue stream. */
  stream_seq: number;
}

type Payload = Record<string, unknown>;

/**
 * A job's view, folded from its audit rows (the audit log is the brain's record of jobs, so
 * a restarted brain knows them all): undefined when no `job.submitted` row is among them.
 * `rows` oldest first.
 */
export function foldJob(rows: readonly AuditRecord[]): JobView | undefined {
  const submitted = rows.find((r) => r.type === 'job.submitted');
  if (submitted === undefined || submitted.decisionId === null) return undefined;
  const p = submitted.payload as Payload;
  const view: JobView = {
    id: submitted.decisionId,
    tool: submitted.tool ?? '',
    status: 'queued',
    delivery: p.delivery === 'at_least_once' ? 'at_least_once' : 'at_most_once',
    actor: submitted.actor,
    ...(submitted.sessionId === null ? {} : { session_id: submitted.sessionId }),
    submitted_at: submitted.ts,
    stream_seq: typeof p.stream_seq === 'number' ? p.stream_seq : 0,
  };
  for (const r of rows) {
    if (r.seq <= submitted.seq) continue;
    if (isEnded(view.status)) break;
    const q = r.payload as Payload;
    if (typeof q.attempt === 'number') view.attempt = q.attempt;
    if (isWorker(q.worker)) view.worker = q.worker;
    if (r.type === 'job.started') {
      view.status = 'running';
      view.started_at = r.ts;
    } else if (r.type === 'job.progress') {
      view.progress = {
        ...(typeof q.fraction === 'number' ? { fraction: q.fraction } : {}),
        ...(typeof q.message === 'string' ? { message: q.message } : {}),
        at: r.ts,
      };
    } else if (r.type === 'job.finished') {
      view.status = 'finished';
      view.ended_at = r.ts;
      view.result = q.result;
    } else if (r.type === 'job.failed') {
      const error = q.error as JobView['error'];
      view.status = error?.code === 'job_cancelled' ? 'cancelled' : 'failed';
      view.ended_at = r.ts;
      if (error !== undefined) view.error = error;
    }
  }
  return view;
}

/** Has the job ended (finished, failed or cancelled)? */
export function isEnded(status: JobStatus): boolean {
  return status === 'finished' || status === 'failed' || status === 'cancelled';
}

function isWorker(v: unknown): v is { id: string; host: string } {
  if (typeof v !== 'object' || v === null) return false;
  const w = v as Payload;
  return typeof w.id === 'string' && typeof w.host === 'string';
}
