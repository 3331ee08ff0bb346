import type { AuditRecord } from '../../audit/index.js';
import type { JobStatus, JobView } from '../api/index.js';

export const JOB_EVENT_TYPES = [
  'job.submitted',
  'job.started',
  'job.progress',
  'job.finished',
  'job.failed',
] as const;

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
