import type { AuditQuery, AuditRecord } from '../../audit/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import type { ToolSpec } from '../../protocol/index.js';
import { jsonTextOf, terminalLine } from '../../text/index.js';
import {
  CLIENT_KEPT_LEDGER,
  isClientKept,
  type JobEndReports,
  type SessionRef,
  type ToolTurnRecord,
} from '../agent/index.js';
import type { JobView } from '../api/index.js';
import { isEnded } from '../jobs/job-view.js';
import { JOB_STATUS, jobStatusOf } from './job-status.js';

/**
 * Reports of job ends to the conversation that submitted each job (ADR 0100). The audit log
 * is the record of jobs, and the conversation store remembers which ends a conversation was
 * told of; so a report is derived when the next turn opens, from both, rather than pushed
 * into a queue that a restart or a crash between two writes could lose. A job that ended
 * while the brain was down is reported once the brain read its end from the event stream.
 */

/** The newest jobs of a conversation looked at when a turn opens: its pending reports' bound. */
export const JOB_REPORT_WINDOW = 8;
/** A report line's excerpt of a result or an error message, in characters. */
const MAX_EXCERPT_CHARS = 120;

/** One job's end, told to its conversation. */
export interface JobEndReport {
  /**
   * The record kept in the conversation: `job_status` as if asked for this job, labelled as
   * the job's tool's output (a finished job's result taints the turn as its call would have).
   */
  readonly record: ToolTurnRecord;
  /** One line for the operator, in the brain's words; the tool's text in it escaped, clamped. */
  readonly line: string;
}

/** A job's end as a report, from its view (ended) and its tool's spec (null: unknown). */
export function jobEndReport(job: JobView, spec: ToolSpec | null): JobEndReport {
  const { result, label } = jobStatusOf(job, () => spec);
  const record: ToolTurnRecord = {
    name: JOB_STATUS,
    decision_id: job.id,
    // an id of its own, so the transcript never takes it for the submission's answer
    call_id: `jobend_${job.id.replaceAll('-', '')}`.slice(0, 40),
    outcome: 'ok',
    input: { job_id: job.id },
    result,
    label,
  };
  return { record, line: jobEndLine(job) };
}

/** `job <id> (<tool>) finished: <result>`, `… failed: <code>: <message>`, `… was cancelled`. */
export function jobEndLine(job: JobView): string {
  const head = `job ${job.id} (${job.tool})`;
  let line: string;
  if (job.status === 'finished') {
    line = `${head} finished: ${excerpt(jsonText(job.result))}`;
  } else if (job.status === 'cancelled') {
    line = `${head} was cancelled`;
  } else {
    const error = job.error;
    line =
      error === undefined
        ? `${head} failed`
        : `${head} failed: ${excerpt(error.code)}: ${excerpt(error.message)}`;
  }
  return terminalLine(line);
}

/** A result as JSON (it came from the audit log, so it is JSON). */
function jsonText(value: unknown): string {
  return jsonTextOf(value, 'no result', 'a result that is not JSON');
}

function excerpt(text: string): string {
  const chars = [...text];
  return chars.length <= MAX_EXCERPT_CHARS
    ? text
    : `${chars.slice(0, MAX_EXCERPT_CHARS).join('')}…`;
}

interface JobReportsOptions {
  /** The audit log: the conversation's `job.submitted` rows. */
  readonly audit: { query(query: AuditQuery): AuditRecord[] };
  /** A job's view from the audit log. */
  readonly job: (id: string) => JobView | undefined;
  /** Which of these jobs' ends the conversation has not been told of yet, now claimed. */
  readonly conversations: {
    /** The ledger session of a token's client-kept requests, made when first needed. */
    ensureSession(id: string, actor: string, create: boolean): SessionRef;
    claimJobReports(
      session: SessionRef,
      jobs: readonly { id: string; submittedAt: number }[],
    ): string[];
  };
  readonly specOf: (tool: string) => ToolSpec | null;
  readonly logger?: Logger;
}

/** The reports a turn opens with. */
export class JobReports implements JobEndReports {
  readonly #o: JobReportsOptions;
  readonly #log: Logger;

  constructor(options: JobReportsOptions) {
    this.#o = options;
    this.#log = options.logger ?? silentLogger();
  }

  /**
   * The ends of this conversation's jobs not yet told to it, oldest end first, each given
   * once: jobs submitted in this session by its owner, among its newest
   * {@link JOB_REPORT_WINDOW}. Another actor's job, or one of an earlier session under the
   * same name, is never among them. For a client-kept request (`clientKept`), the jobs of
   * every client-kept request of the same token, claimed under the token's ledger session.
   */
  take(session: SessionRef, clientKept = false): JobEndReport[] {
    const conv = this.#o.conversations;
    // the token's ledger exists from its first client-kept request on (a job submitted
    // before the ledger was made is not reported), and each such request keeps it in use
    const ledger = clientKept
      ? conv.ensureSession(CLIENT_KEPT_LEDGER, session.actor, true)
      : session;
    const ended = clientKept ? this.#clientKeptEnded(session) : this.#ended(session);
    if (ended.length === 0) {
      if (clientKept) conv.claimJobReports(ledger, []);
      return [];
    }
    ended.sort((a, b) => Date.parse(a.ended_at ?? '') - Date.parse(b.ended_at ?? ''));
    const toClaim = ended.map((j) => ({ id: j.id, submittedAt: Date.parse(j.submitted_at) }));
    const claimed = new Set(conv.claimJobReports(ledger, toClaim));
    const reports = ended.filter((j) => claimed.has(j.id)).map((j) => this.#report(j));
    if (reports.length > 0) {
      this.#log.debug({ sessionId: session.id, jobs: reports.length }, 'job ends reported');
    }
    return reports;
  }

  #ended(session: SessionRef): JobView[] {
    const rows = this.#o.audit.query({
      types: ['job.submitted'],
      sessionId: session.id,
      actor: session.actor,
      limit: JOB_REPORT_WINDOW,
    });
    return this.#views(rows).filter((j) => j.session_id === session.id);
  }

  #clientKeptEnded(session: SessionRef): JobView[] {
    const rows = this.#o.audit
      .query({ types: ['job.submitted'], actor: session.actor, limit: 4 * JOB_REPORT_WINDOW })
      .filter((r) => r.sessionId !== null && isClientKept(r.sessionId))
      .slice(0, JOB_REPORT_WINDOW);
    return this.#views(rows);
  }

  /** The ended jobs of these rows whose owner is the session's, as the audit log has them. */
  #views(rows: readonly AuditRecord[]): JobView[] {
    const ended: JobView[] = [];
    for (const row of rows) {
      const job = row.decisionId === null ? undefined : this.#o.job(row.decisionId);
      if (job === undefined || !isEnded(job.status) || job.actor !== row.actor) continue;
      ended.push(job);
    }
    return ended;
  }

  #report(job: JobView): JobEndReport {
    return jobEndReport(job, this.#o.specOf(job.tool));
  }
}
