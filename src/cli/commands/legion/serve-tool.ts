import type { Command } from 'commander';
import { shippedToolNames } from '../../../../workers/index.js';
import { addBusFlags, durationFlag } from '../../program/flags.js';
import { addRestartFlags, restartsOf } from './restart-flags.js';
import type { ServeFlags } from './serve-tool.run.js';

/** `caesar legion serve-tool [name...]`: serves tools over NATS until stopped (`serve-tool.run.ts`). */
export function addServeTool(legion: Command): void {
  addRestartFlags(
    addBusFlags(
      legion
        .command('serve-tool')
        .description(
          `serve shipped tools (${shippedToolNames().join(', ')}) and/or your own (--module) over NATS`,
        )
        .argument('[name...]', 'shipped tool names')
        .option(
          '--module <path-or-package>',
          'a tool of your own: a file (./weather/tool.js) or an installed package whose default export is its definition (docs/legion.md); repeatable',
          (value: string, previous: string[] = []) => [...previous, value],
        )
        .option(
          '--catalog',
          "add each --module's tools to the catalog (<data-dir>/catalog.yaml) before serving or checking them, as `caesar catalog add` does",
        )
        .option(
          '--check',
          'load and check the tools, print their names as JSON, and exit without connecting',
        )
        .option(
          '--import-timeout <duration>',
          'how long each --module may take to import before it is refused (default 10s; worker.import_timeout)',
          durationFlag,
        )
        .option('--host <name>', 'host name reported to the brain (default: this host)')
        .option(
          '--trusted-brain <key-or-file>',
          'a brain whose signed grants this worker accepts: its public key, or a file holding it (identity new --brain writes <name>.pub); repeat for a key rotation (adds to worker.trusted_brains)',
          (value: string, previous: string[] = []) => [...previous, value],
        ),
    ),
  ).action(async (names: string[], flags: ServeFlags, cmd: Command) => {
    if (names.length === 0 && (flags.module ?? []).length === 0) {
      cmd.error('error: name a shipped tool, or give --module <path-or-package>');
    }
    const restarts = restartsOf(flags);
    if (!restarts.ok) cmd.error(`error: ${restarts.problem}`);
    const { serveTool } = await import('./serve-tool.run.js');
    process.exitCode = await serveTool(names, flags);
  });
}
