import type { Command } from 'commander';
import type { NewFlags } from './new.run.js';

/** `caesar legion new <name>`: scaffolds a tool of the operator's own (`new.run.ts`). */
export function addNew(legion: Command): void {
  legion
    .command('new')
    .description(
      'scaffold a tool in a folder of your own: its definition, a unit test and a docs page (never overwrites)',
    )
    .argument('<name>', 'the tool name, ^[a-z][a-z0-9_]{0,63}$, e.g. greeter')
    .option('--dir <dir>', 'where to write it (default ./<name>)')
    .option(
      '--sandbox',
      'scaffold a command tool: a program run in a bubblewrap sandbox with limits (ADR 0097)',
    )
    .action(async (name: string, flags: NewFlags) => {
      const { newTool } = await import('./new.run.js');
      process.exitCode = await newTool(name, flags);
    });
}
