import { EXIT_FAILED, EXIT_OK, withClient } from '../../brain-client/command.js';
import { chatConsoleIo, type ChatCliIo, type ChatFlags } from './io.js';
import { ChatSession, SESSION_ID, usage } from './session.js';

/**
 * `caesar chat [message...]`: one message and its reply; with no message, an interactive
 * session on a terminal, or one message per line from piped stdin. The session id is kept
 * across messages, so the brain sees one conversation. The reply streams: its text is
 * printed as it arrives and each tool call as a line on stderr when it returns
 * (`· web_search → ok (812 ms)`; the full `[tool] …` line with `--verbose`).
 */

/** Exit 0 on success, 1 when the brain answered with an error or is unreachable, 2 on usage. */
export async function runChat(
  words: readonly string[],
  flags: ChatFlags,
  io: ChatCliIo = chatConsoleIo,
): Promise<number> {
  const message = words.join(' ').trim();
  if (words.length > 0 && message === '') return usage(io, 'the message is empty');
  if (flags.session !== undefined && !SESSION_ID.safeParse(flags.session).success) {
    return usage(io, `--session: expected 1-64 letters, digits, \`_\` or \`-\``);
  }
  return withClient('chat', flags, io, async (client, target) => {
    const chat = new ChatSession(client, target, flags, io);
    // `caesar chat /help setup`: a session's command, run once
    if (message.startsWith('/')) return (await chat.command(message)) ? EXIT_OK : EXIT_FAILED;
    if (message !== '') return (await chat.send(message, false)) ? EXIT_OK : EXIT_FAILED;
    const interactive = io.interactive ?? process.stdin.isTTY === true;
    return interactive ? chat.repl() : chat.lines();
  });
}
