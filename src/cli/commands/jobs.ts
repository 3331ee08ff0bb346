import type { Command } from 'commander';
import { done, usageExit } from '../program/exit.js';
import { addApiFlags, type ApiFlags } from '../program/flags.js';

/**
 * Adds `caesar jobs list|show|cancel` (ADR 0098): the long-running jobs the brain submitted,
 * read from its audit log over the HTTP API; `jobs.run.ts` loads when one runs.
 */
export function register(program: Command): void {
  const jobs = program
    .command('jobs')
    .description('long-running jobs: list them, show one, cancel one')
    .exitOverride(usageExit);
  addApiFlags(
    jobs
      .command('list')
      .description('the newest jobs first: id, tool, status, progress')
      .option('--limit <n>', 'how many (1-1000)', '50')
      .option('--json', 'print the jobs as JSON')
      .exitOverride(usageExit),
  ).action(async (flags: ApiFlags & { json?: boolean; limit: string }) => {
    const { runJobsList } = await import('../brain-client/runners.js');
    done(await runJobsList(flags));
  });
  addApiFlags(
    jobs
      .command('show')
      .description('one job: where it is, its progress, its worker, its result or error')
      .argument('<id>', 'the job id the submission answered (`caesar jobs list` shows them)')
      .option('--json', 'print the job as JSON')
      .exitOverride(usageExit),
  ).action(async (id: string, flags: ApiFlags & { json?: boolean }) => {
    const { runJobsShow } = await import('../brain-client/runners.js');
    done(await runJobsShow(id, flags));
  });
  addApiFlags(
    jobs
      .command('cancel')
      .description(
        'cancel a job: taken off the queue if no worker started it, else its AbortSignal fires',
      )
      .argument('<id>', 'the job id')
      .option('--json', 'print the job as JSON')
      .exitOverride(usageExit),
  ).action(async (id: string, flags: ApiFlags & { json?: boolean }) => {
    const { runJobsCancel } = await import('../brain-client/runners.js');
    done(await runJobsCancel(id, flags));
  });
}
