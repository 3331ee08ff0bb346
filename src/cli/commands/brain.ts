import type { Command } from 'commander';
import { addBrainFileFlags, addBusFlags } from '../program/flags.js';
import type { BrainFlags } from './brain.run.js';

/** Adds `caesar brain`; the brain itself (`brain.run.ts`) loads when the command runs. */
export function register(program: Command): void {
  addBusFlags(
    addBrainFileFlags(
      program
        .command('brain')
        .description(
          'run the brain alone (HTTP API, policy gate, audit log) against an existing NATS',
        )
        .option('--api-host <address>', 'address the HTTP API listens on (default 127.0.0.1)')
        .option('--api-port <port>', 'port of the HTTP API (default 8420; 0 = any free port)')
        .option(
          '--expect-tools <names>',
          'tools whose workers start beside it (comma-separated): it is ready once each has answered, with no wait for later ones (caesar up passes its own)',
        ),
    ),
  ).action(async (flags: BrainFlags) => {
    const { runBrain } = await import('./brain.run.js');
    process.exitCode = await runBrain(flags);
  });
}
