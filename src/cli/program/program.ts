import { Command } from 'commander';
import { registerCommandGroups } from '../commands/index.js';
import { usageExit } from './exit.js';

/** Builds the `caesar` command tree. Separate from main.ts so tests can drive it in-process. */
export function buildProgram(): Command {
  const program = new Command('caesar')
    .description('CAESAR: a self-hosted tool-worker runtime for home and homelab assistants')
    .version('0.1.0')
    .showHelpAfterError();
  registerCommandGroups(program);
  // every command, not only those that set it: an unknown flag or a missing argument exits 2
  // (`up` and `legion list` exited 1, `chat` 2)
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const command of all(program)) command.exitOverride(usageExit);
  return program;
}
