import { Command } from 'commander';
import { registerCommandGroups } from './commands/index.js';

/** Builds the `caesar` command tree. Separate from main.ts so tests can drive it in-process. */
export function buildProgram(): Command {
  const program = new Command('caesar')
    .description('CAESAR: a self-hosted tool-worker runtime for home and homelab assistants')
    .version('0.1.0')
    .showHelpAfterError();
  registerCommandGroups(program);
  return program;
}
