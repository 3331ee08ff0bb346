import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { subcommand, type DbOptions } from './flags.js';

/** Adds `caesar audit backup`; `backup.run.ts` loads when it runs. */
export function addBackup(group: Command): void {
  subcommand(
    group,
    'backup',
    'online backup to a new file (SQLite backup API), then verify the copy',
  )
    .requiredOption('--to <file>', 'destination; must not exist')
    .action(async (opts: DbOptions & { to: string }) => {
      const { runAuditBackup } = await import('./backup.run.js');
      done(await runAuditBackup(opts));
    });
}
