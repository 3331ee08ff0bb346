import type { Command } from 'commander';
import { done } from '../../program/exit.js';
import { withFilters } from './filters.js';
import { positiveInt, subcommand } from './flags.js';
import type { TailOptions } from './tail.run.js';

/** Adds `caesar audit tail`; `tail.run.ts` loads when it runs. */
export function addTail(group: Command): void {
  withFilters(subcommand(group, 'tail', 'print the newest rows; -f keeps printing new ones'))
    .option('-n, --lines <n>', 'rows to print first', positiveInt, 20)
    .option('-f, --follow', 'keep printing rows as they are appended (Ctrl-C ends)')
    .option('--json', 'one JSON object per line')
    .action(async (opts: TailOptions) => {
      const { tailOnConsole } = await import('./tail.run.js');
      done(await tailOnConsole(opts));
    });
}
