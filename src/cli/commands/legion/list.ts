import type { Command } from 'commander';
import { addBusFlags, CLIENT_IDENTITY_HELP } from '../../program/flags.js';
import type { ListFlags } from './list.run.js';

/** `caesar legion list`; the listing itself (`list.run.ts`) loads when the command runs. */
export function addList(legion: Command): void {
  addBusFlags(
    legion
      .command('list')
      .description('list the tools and instances connected to NATS')
      .option('--json', 'print a JSON array instead of a table')
      .option('--wait <ms>', 'how long to collect discovery replies', '500')
      .addHelpText('after', CLIENT_IDENTITY_HELP),
  ).action(async (flags: ListFlags) => {
    const { runList } = await import('./list.run.js');
    await runList(flags);
  });
}
