import type { JobView } from '../../brain/api/index.js';
import { ApiError, type ApiClient } from '../brain-client/client.js';
import {
  consoleIo,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  withClient,
  type ApiCliIo,
} from '../brain-client/command.js';
import type { ApiFlags } from '../program/flags.js';
import { terminalLine } from '../../text/terminal-text.js';

/** `caesar jobs list|show|cancel` (ADR 0098), over the brain's HTTP API. */

interface JobsFlags extends ApiFlags {
  json?: boolean;
  limit?: string;
}

const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** `caesar jobs list`: one line per job, newest first; exit 0. */
export async function runJobsList(flags: JobsFlags, io: ApiCliIo = consoleIo): Promise<number> {
  const limit = Number(flags.limit ?? '50');
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    io.err('caesar jobs list: --limit takes a whole number from 1 to 1000');
    return EXIT_USAGE;
  }
  return withClient('jobs list', flags, io, async (client) => {
    const { jobs } = await client.jobs(limit);
    if (flags.json === true) {
      io.out(JSON.stringify(jobs, null, 2));
      return EXIT_OK;
    }
    if (jobs.length === 0) io.out('no jobs');
    for (const job of jobs) io.out(terminalLine(jobLine(job)));
    return EXIT_OK;
  });
}

/** `caesar jobs show <id>`: exit 0 when the job is known, 1 when not. */
export async function runJobsShow(
  id: string,
  flags: JobsFlags,
  io: ApiCliIo = consoleIo,
): Promise<number> {
  return oneJob('show', id, flags, io, (client) => client.job(id));
}

/** `caesar jobs cancel <id>`: exit 0 when the job is cancelled (or ended before), 1 when unknown. */
export async function runJobsCancel(
  id: string,
  flags: JobsFlags,
  io: ApiCliIo = consoleIo,
): Promise<number> {
  return oneJob('cancel', id, flags, io, (client) => client.cancelJob(id));
}

async function oneJob(
  verb: 'show' | 'cancel',
  id: string,
  flags: JobsFlags,
  io: ApiCliIo,
  ask: (client: ApiClient) => Promise<JobView>,
): Promise<number> {
  if (!JOB_ID.test(id)) {
    io.err(`caesar jobs ${verb}: expected a job id (1-64 letters, digits, _ or -)`);
    return EXIT_USAGE;
  }
  return withClient(`jobs ${verb}`, flags, io, async (client) => {
    let job: JobView;
    try {
      job = await ask(client);
    } catch (err) {
      if (!(err instanceof ApiError) || err.httpStatus !== 404) throw err;
      io.err(terminalLine(`caesar jobs ${verb}: no job ${id}`));
      return EXIT_FAILED;
    }
    if (flags.json === true) io.out(JSON.stringify(job, null, 2));
    else for (const line of jobLines(job)) io.out(terminalLine(line));
    return EXIT_OK;
  });
}

/** `<id>  <tool>  <status>  <progress>`. */
function jobLine(job: JobView): string {
  return [job.id, job.tool, job.status, progressText(job)].filter((s) => s !== '').join('  ');
}

function progressText(job: JobView): string {
  const p = job.progress;
  if (p === undefined || job.status !== 'running') return '';
  const pct = p.fraction === undefined ? '' : `${Math.round(p.fraction * 100)}%`;
  return [pct, p.message ?? ''].filter((s) => s !== '').join(' ');
}

/** Every fact of one job, a line each. */
function jobLines(job: JobView): string[] {
  const lines = [
    `job ${job.id}: ${job.tool}, ${job.status}`,
    `submitted ${job.submitted_at} by ${job.actor}; runs ${job.delivery.replaceAll('_', ' ')}`,
  ];
  if (job.started_at !== undefined) {
    const on = job.worker === undefined ? '' : ` on ${job.worker.host}`;
    const attempt = (job.attempt ?? 1) > 1 ? ` (attempt ${job.attempt})` : '';
    lines.push(`started ${job.started_at}${on}${attempt}`);
  }
  const progress = progressText(job);
  if (progress !== '') lines.push(`progress: ${progress}`);
  if (job.ended_at !== undefined) lines.push(`ended ${job.ended_at}`);
  if (job.result !== undefined) lines.push(`result: ${JSON.stringify(job.result)}`);
  if (job.error !== undefined) lines.push(`error ${job.error.code}: ${job.error.message}`);
  return lines;
}
