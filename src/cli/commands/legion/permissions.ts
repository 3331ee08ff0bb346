import type { Command } from 'commander';
import type { PermissionsFlags } from './permissions.run.js';

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
    .action(async (tools: string[], flags: PermissionsFlags) => {
      const { printPermissions } = await import('./permissions.run.js');
      printPermissions(tools, flags);
    });
}
