import type { Command } from 'commander';
import { done, usageExit } from '../program/exit.js';
import { addApiFlags } from '../program/flags.js';
import type { InvokeFlags } from './invoke.run.js';

/** Adds `caesar invoke`; the call itself (`invoke.run.ts`) loads when it runs. */
export function register(program: Command): void {
  addApiFlags(
    program
      .command('invoke')
      .description('run one tool call through the brain (policy, audit, dispatch)')
      .argument('<tool>', 'tool name, e.g. calculator')
      .argument('[json]', 'tool input as JSON, or - to read it from stdin (default {})')
      .option('--input-file <file>', 'read the input JSON from a file (- for stdin)')
      .option('--json', 'print the ToolCallReport as JSON')
      .exitOverride(usageExit),
  ).action(async (tool: string, json: string | undefined, flags: InvokeFlags) => {
    const { runInvoke } = await import('../brain-client/runners.js');
    done(await runInvoke(tool, json, flags));
  });
}
