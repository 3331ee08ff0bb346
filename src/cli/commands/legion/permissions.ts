import type { Command } from 'commander';
import { brainPermissions, workerPermissions } from '../../../protocol/index.js';

/** `caesar legion permissions`: the least-privilege nats-server permissions of a part. */
export function addPermissions(legion: Command): void {
  legion
    .command('permissions')
    .description(
      'print the least-privilege nats-server permissions for a worker host, or for the brain',
    )
    .argument('[tool...]', 'the tools this host serves')
    .option(
      '--brain [identity]',
      "the brain's permissions instead; run it with --inbox-identity <identity> (default brain)",
    )
    .action((tools: string[], flags: { brain?: string | true }) => {
      if (flags.brain !== undefined) {
        if (tools.length > 0) throw new Error('give either tool names or --brain, not both');
        const identity = flags.brain === true ? 'brain' : flags.brain;
        console.log(`permissions: ${JSON.stringify(brainPermissions(identity), null, 2)}`);
        return;
      }
      if (tools.length === 0) throw new Error('name the tools this host serves, or pass --brain');
      console.log(`permissions: ${JSON.stringify(workerPermissions(tools), null, 2)}`);
    });
}
