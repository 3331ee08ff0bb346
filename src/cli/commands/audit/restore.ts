import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { subcommand, type DbOptions } from './flags.js';

/** Adds `caesar audit restore`; `restore.run.ts` loads when it runs. */
export function addRestore(group: Command): void {
  subcommand(group, 'restore', 'replace the log with a verified backup (the brain must be stopped)')
    .requiredOption('--from <file>', 'backup to restore')
    .action(async (opts: DbOptions & { from: string }) => {
      const { runAuditRestore } = await import('./restore.run.js');
      done(await runAuditRestore(opts));
    });
}
