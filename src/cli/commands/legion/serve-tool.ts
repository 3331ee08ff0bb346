import type { Command } from 'commander';
import { shippedToolNames } from '../../../../workers/index.js';
import { addBusFlags } from '../../flags.js';
import type { ServeFlags } from './serve-tool.run.js';

/** `caesar legion serve-tool <name...>`: serves shipped tools over NATS until stopped (`serve-tool.run.ts`). */
export function addServeTool(legion: Command): void {
  addBusFlags(
    legion
      .command('serve-tool')
      .description(`serve one or more shipped tools over NATS (${shippedToolNames().join(', ')})`)
      .argument('<name...>', 'tool names')
      .option('--host <name>', 'host name reported to the brain (default: this host)')
      .option(
        '--trusted-brain <key-or-file>',
        'a brain whose signed grants this worker accepts: its public key, or a file holding it (identity new --brain writes <name>.pub); repeat for a key rotation (adds to worker.trusted_brains)',
        (value: string, previous: string[] = []) => [...previous, value],
      ),
  ).action(async (names: string[], flags: ServeFlags) => {
    const { serveTool } = await import('./serve-tool.run.js');
    process.exitCode = await serveTool(names, flags);
  });
}
