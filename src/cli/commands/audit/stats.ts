import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { subcommand, type DbOptions } from './flags.js';

/** Adds `caesar audit stats`; `stats.run.ts` loads when it runs. */
export function addStats(group: Command): void {
  subcommand(group, 'stats', 'size, span and counts by type, tool and outcome')
    .option('--json', 'print JSON')
    .action(async (opts: DbOptions & { json?: boolean }) => {
      const { runAuditStats } = await import('./stats.run.js');
      done(await runAuditStats(opts));
    });
}
