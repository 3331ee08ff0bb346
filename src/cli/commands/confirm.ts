import type { Command } from 'commander';
import { done, usageExit } from '../program/exit.js';
import { addApiFlags, type ApiFlags } from '../program/flags.js';

/**
 * Adds `caesar confirm` (without an id: what waits, who asked and what the model had read)
 * and `caesar reject`; `confirm.run.ts` loads when one runs.
 */
export function register(program: Command): void {
  addApiFlags(
    program
      .command('confirm')
      .description(
        'approve a tool call waiting for confirmation: it runs once; without an id, list the ' +
          'calls waiting, who asked for each and what the model had read',
      )
      .argument('[id]', 'the confirmation id `caesar invoke`, `caesar chat` or the list printed')
      .option('--json', 'print the ToolCallReport (the list: the confirmations) as JSON')
      .exitOverride(usageExit),
  ).action(async (id: string | undefined, flags: ApiFlags & { json?: boolean }) => {
    const { runConfirm, runConfirmList } = await import('../brain-client/runners.js');
    done(id === undefined ? await runConfirmList(flags) : await runConfirm(id, true, flags));
  });
  addApiFlags(
    program
      .command('reject')
      .description('reject a tool call waiting for confirmation: it never runs')
      .argument(
        '<id>',
        'the confirmation id `caesar invoke`, `caesar chat` or `caesar confirm` printed',
      )
      .option(
        '--stop-turn',
        "also stop the model's turn that asked for it: no round after it, and its other waiting calls rejected",
      )
      .option('--json', 'print the ToolCallReport as JSON')
      .exitOverride(usageExit),
  ).action(async (id: string, flags: ApiFlags & { json?: boolean; stopTurn?: boolean }) => {
    const { runConfirm } = await import('../brain-client/runners.js');
    done(await runConfirm(id, false, flags));
  });
}
