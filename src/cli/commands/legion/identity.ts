import type { Command } from 'commander';
import type { IdentityFlags } from './identity.run.js';

/** `caesar legion identity new`: mints an NKEY identity and prints its nats-server user block. */
export function addIdentity(legion: Command): void {
  const identity = legion
    .command('identity')
    .description('NKEY identities for the hosts of a multi-host setup');
  identity
    .command('new')
    .description(
      'mint an NKEY: write its seed (mode 0600) and print its public key and the nats-server user block to paste',
    )
    .argument('<name>', 'a name for the identity, e.g. calculator-nuc; the seed file is <name>.nk')
    .option('--tools <names>', 'a worker host serving these tools (comma-separated)')
    .option('--brain', 'the brain')
    .option('--operator', 'the operator: unrestricted, for the CLI on a trusted host')
    .option('--out <file>', 'where to write the seed (default ./<name>.nk); never overwritten')
    .action(async (name: string, flags: IdentityFlags) => {
      const { newIdentity } = await import('./identity.run.js');
      process.exitCode = await newIdentity(name, flags);
    });
}
