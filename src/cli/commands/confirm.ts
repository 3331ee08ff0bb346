import type { Command } from 'commander';
import { loadClient } from '../client-loader.js';
import { done, usageExit } from '../exit.js';
import { addApiFlags, type ApiFlags } from '../flags.js';

/** Adds `caesar confirm` and `caesar reject`; `confirm.run.ts` loads (through `loadClient`) when one runs. */
export function register(program: Command): void {
  for (const [name, approve] of [
    ['confirm', true],
    ['reject', false],
  ] as const) {
    addApiFlags(
      program
        .command(name)
        .description(
          approve
            ? 'approve a tool call waiting for confirmation: it runs once'
            : 'reject a tool call waiting for confirmation: it never runs',
        )
        .argument('<id>', 'the confirmation id `caesar invoke` or `caesar chat` printed')
        .option('--json', 'print the ToolCallReport as JSON')
        .exitOverride(usageExit),
    ).action(async (id: string, flags: ApiFlags & { json?: boolean }) => {
      const { runConfirm } = await loadClient();
      done(await runConfirm(id, approve, flags));
    });
  }
}
