import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { withFilters } from './filters.js';
import { positiveInt, subcommand } from './flags.js';
import type { QueryOptions } from './query.run.js';

/** Adds `caesar audit query`; `query.run.ts` loads when it runs. */
export function addQuery(group: Command): void {
  withFilters(subcommand(group, 'query', 'rows matching filters, newest first'))
    .option('--after-seq <seq>', 'only rows after this seq, oldest first', positiveInt)
    .option('--oldest', 'oldest first')
    .option('--limit <n>', 'at most this many rows (max 10000)', positiveInt, 100)
    .option('--json', 'one JSON object per line')
    .action(async (opts: QueryOptions) => {
      const { runAuditQuery } = await import('./query.run.js');
      done(await runAuditQuery(opts));
    });
}
