import type { Command } from 'commander';
import { usageExit } from '../../program/exit.js';
import { addApiFlags } from '../../program/flags.js';
import type { ChatFlags } from './io.js';

/** Adds `caesar chat`; the client (`run.ts`) loads when it runs. */
export function register(program: Command): void {
  addApiFlags(
    program
      .command('chat')
      .description('talk to the brain: one message, or a session when none is given')
      .argument('[message...]', 'the message (words are joined with spaces)')
      .option('--session <id>', 'continue this session, or start it under this name (e.g. kitchen)')
      .option('--json', 'print the ChatResponse as JSON (one line per message from stdin)')
      .option(
        '-v, --verbose',
        'print each tool call in full (decision id) and the planner, on stderr',
      )
      .exitOverride(usageExit),
  ).action(async (words: string[], flags: ChatFlags) => {
    const { runChat } = await import('../../brain-client/runners.js');
    process.exitCode = await runChat(words, flags);
  });
}
