import type { Command } from 'commander';
import type { ConfigShowOptions } from './config.run.js';

/** Adds `caesar config show`. */
export function register(program: Command): void {
  const group = program.command('config').description('inspect the configuration');
  group
    .command('show')
    .description('print the effective configuration: each value with its source, secrets masked')
    .option('--config <file>', 'caesar.yaml to read (default: $CAESAR_CONFIG, then ./caesar.yaml)')
    .option('--data-dir <dir>', 'data directory (default ./var)')
    .option('--json', 'print {"<key>": {"value", "source"}} as JSON')
    .action(async (opts: ConfigShowOptions) => {
      const { runConfigShow } = await import('./config.run.js');
      process.exitCode = await runConfigShow(opts);
    });
}
