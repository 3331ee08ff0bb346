import { z } from 'zod';
import { unmadeCall, type CallGate, type PlannerTool } from '../agent/index.js';
import type { Caller, JobView } from '../api/index.js';
import { LOCAL_LABEL, labelOf, type ContentLabel } from '../gateway/provenance.js';
import type { ToolSpec } from '../../protocol/index.js';
import { PlannerActionGate, type ActionAnswer, type ActionCall } from './action-gate.js';

/**
 * `job_status`, the planner's way to follow a job it started (issue 33, ADR 0098): `{job_id}`
 * in, the job's status, progress and, once it ended, its result or error out, from the audit
 * log (the brain's record of jobs). Offered beside the tools whenever one of them may run as
 * a job. A model sees only jobs its own token submitted; any other id is answered as one that
 * does not exist. Nothing is dispatched, so no `tool.called` row: the round's `llm.called`
 * counts the call. The status is the brain's own data (trusted); a result is the job's tool's
 * output, labelled as that tool's output is.
 */
export const JOB_STATUS = 'job_status';

const InputSchema = z.strictObject({ job_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

/** The action as the planner is offered it. */
export function jobStatusTool(): PlannerTool {
  return Object.freeze({
    name: JOB_STATUS,
    description: [
      `${JOB_STATUS}: how a job you started is doing (a tool that runs as a job answers at once`,
      'with a job_id; the work goes on in the background). Tags: tool. Read-only; runs nothing.',
      'Returns {job_id, tool, status (queued, running, finished, failed, cancelled), progress?,',
      'result? (once finished), error? (once failed)}.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: { job_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
      required: ['job_id'],
      additionalProperties: false,
    },
  });
}

/**
 * What `job_status` says about a job, and what that is as content: the status is the brain's
 * own data (trusted); a result or error is the job's tool's output, labelled as that tool's
 * output is (ADR 0065), so reading it taints a turn as calling the tool would have.
 */
export function jobStatusOf(
  job: JobView,
  specOf: (tool: string) => ToolSpec | null,
): { result: JobStatusResult; label: ContentLabel } {
  const result = {
    job_id: job.id,
    tool: job.tool,
    status: job.status,
    ...(job.progress === undefined ? {} : { progress: job.progress }),
    ...(job.result === undefined ? {} : { result: job.result }),
    ...(job.error === undefined ? {} : { error: job.error }),
  };
  const label =
    job.result === undefined && job.error === undefined
      ? LOCAL_LABEL
      : labelOf(specOf(job.tool), job.result ?? job.error);
  return { result, label };
}

/** The result of `job_status`. */
export type JobStatusResult = Pick<JobView, 'tool' | 'status' | 'progress' | 'result' | 'error'> & {
  readonly job_id: string;
};

interface JobStatusGateOptions {
  readonly job: (id: string) => JobView | undefined;
  /** The live spec of a tool, to label a job's result as that tool's output. */
  readonly specOf: (tool: string) => ToolSpec | null;
}

/** The agent's call gate with `job_status` answered in front of it. */
export class JobStatusGate extends PlannerActionGate<z.infer<typeof InputSchema>> {
  readonly #o: JobStatusGateOptions;

  constructor(inner: CallGate, options: JobStatusGateOptions) {
    super(inner, JOB_STATUS, InputSchema, '{job_id}');
    this.#o = options;
  }

  protected answer(
    { job_id: id }: z.infer<typeof InputSchema>,
    caller: Caller,
    call: ActionCall,
  ): ActionAnswer {
    const job = this.#o.job(id);
    // another token's job is answered as no job at all: ids are not probed
    if (job === undefined || job.actor !== caller.actor)
      return { refusal: unmadeCall(call, `no job ${id}`) };
    return jobStatusOf(job, this.#o.specOf);
  }
}
