import { createInterface } from 'node:readline';
import type { Command, CommanderError } from 'commander';
import { ChatRequestSchema, type ChatResponse } from '../../brain/api/index.js';
import type { ApiClient } from '../api-client.js';
import { addApiFlags, type ApiFlags } from '../connection.js';
import type { ApiTarget } from '../context.js';
import {
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  confirmationLines,
  consoleIo,
  describeFailure,
  withClient,
  type ApiCliIo,
} from './invoke.js';

/**
 * `caesar chat [message...]`: one message and its reply; with no message, an interactive
 * session on a terminal, or one message per line from piped stdin. The session id is kept
 * across messages, so the brain sees one conversation.
 */

export interface ChatFlags extends ApiFlags {
  /** Continue this session instead of starting one. */
  session?: string;
  json?: boolean;
  verbose?: boolean;
}

export interface ChatCliIo extends ApiCliIo {
  /** Whether `input` is a terminal: interactive session. @default process.stdin.isTTY */
  interactive?: boolean;
  /** Where the interactive prompt goes. @default process.stdout */
  output?: NodeJS.WritableStream;
}

const PROMPT = 'you> ';
const SESSION_ID = ChatRequestSchema.shape.session_id;

/** Exit 0 on success, 1 when the brain answered with an error or is unreachable, 2 on usage. */
export async function runChat(
  words: readonly string[],
  flags: ChatFlags,
  io: ChatCliIo = consoleIo,
): Promise<number> {
  const message = words.join(' ').trim();
  if (words.length > 0 && message === '') return usage(io, 'the message is empty');
  if (flags.session !== undefined && !SESSION_ID.safeParse(flags.session).success) {
    return usage(io, `--session: expected 1-64 letters, digits, \`_\` or \`-\``);
  }
  return withClient('chat', flags, io, async (client, target) => {
    const chat = new ChatSession(client, target, flags, io);
    if (message !== '') return (await chat.send(message, false)) ? EXIT_OK : EXIT_FAILED;
    const interactive = io.interactive ?? process.stdin.isTTY === true;
    return interactive ? chat.repl() : chat.lines();
  });
}

function usage(io: ApiCliIo, msg: string): number {
  io.err(`caesar chat: ${msg}`);
  return EXIT_USAGE;
}

class ChatSession {
  private session: string | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly target: ApiTarget,
    private readonly flags: ChatFlags,
    private readonly io: ChatCliIo,
  ) {
    this.session = flags.session;
  }

  /** Sends one message and prints the answer; false (after saying why) on a failure. */
  async send(message: string, jsonLines: boolean): Promise<boolean> {
    let res: ChatResponse;
    try {
      res = await this.client.chat({
        message,
        ...(this.session === undefined ? {} : { session_id: this.session }),
      });
    } catch (err) {
      this.io.err(`caesar chat: ${describeFailure(err, this.target)}`);
      return false;
    }
    this.session = res.session_id;
    if (this.flags.json) {
      this.io.out(jsonLines ? JSON.stringify(res) : JSON.stringify(res, null, 2));
      return true;
    }
    if (this.flags.verbose) this.describe(res);
    this.io.out(res.reply);
    for (const call of res.tool_calls) {
      if (call.outcome !== 'confirmation_required' || !call.confirmation) continue;
      confirmationLines(call.confirmation, this.flags).forEach((l) => this.io.err(l));
    }
    return true;
  }

  /** `--verbose`: each tool call and how the reply came about, on stderr. */
  private describe(res: ChatResponse): void {
    for (const c of res.tool_calls) {
      const why = c.error ? `: ${c.error.code}` : c.reason ? `: ${c.reason}` : '';
      this.io.err(
        `[tool] ${c.tool} ${c.outcome}${why} (decision ${c.decision_id}, ${Math.round(c.duration_ms)} ms)`,
      );
    }
    const capped = res.capped ? ', capped' : '';
    this.io.err(
      `[chat] session ${res.session_id}, planner ${res.planner}, ${res.iterations} iteration(s)${capped}`,
    );
  }

  /** Piped stdin: one message per line; stops at the first failure. */
  async lines(): Promise<number> {
    const rl = createInterface({ input: this.io.input ?? process.stdin, terminal: false });
    let sent = 0;
    try {
      for await (const line of rl) {
        const message = line.trim();
        if (message === '') continue;
        sent++;
        if (!(await this.send(message, true))) return EXIT_FAILED;
      }
    } finally {
      rl.close();
    }
    if (sent > 0) return EXIT_OK;
    return usage(this.io, 'no message (give one as an argument, or pipe lines on stdin)');
  }

  /** A terminal: prompt, reply, repeat; `/exit` or Ctrl-D ends it. Failures do not. */
  async repl(): Promise<number> {
    const rl = createInterface({
      input: this.io.input ?? process.stdin,
      output: this.io.output ?? process.stdout,
      terminal: this.io.interactive ?? true,
      prompt: PROMPT,
    });
    rl.on('SIGINT', () => rl.close()); // Ctrl-C ends the session like Ctrl-D
    this.io.out(`connected to ${this.client.url} as ${this.target.tokenName}; /help for commands`);
    rl.prompt();
    try {
      for await (const line of rl) {
        const text = line.trim();
        if (text === '/exit' || text === '/quit') break;
        if (text.startsWith('/')) await this.command(text);
        else if (text !== '') await this.send(text, false);
        rl.prompt();
      }
    } finally {
      rl.close();
    }
    return EXIT_OK;
  }

  private async command(text: string): Promise<void> {
    if (text === '/session') {
      this.io.out(this.session === undefined ? 'no session yet' : `session ${this.session}`);
    } else if (text === '/tools') {
      await this.printTools();
    } else {
      this.io.out('/tools lists the tools, /session shows the session id, /exit (or Ctrl-D) quits');
    }
  }

  private async printTools(): Promise<void> {
    try {
      const tools = await this.client.tools();
      if (tools.length === 0) this.io.out('no tools connected');
      for (const t of tools) {
        const up = t.instances.length;
        this.io.out(`${t.name.padEnd(16)} ${t.policy.outcome.padEnd(12)} ${up} instance(s)`);
      }
    } catch (err) {
      this.io.err(`caesar chat: ${describeFailure(err, this.target)}`);
    }
  }
}

/** Adds `caesar chat`. */
export function register(program: Command): void {
  const usageExit = (err: CommanderError): never =>
    process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
  addApiFlags(
    program
      .command('chat')
      .description('talk to the brain: one message, or a session when none is given')
      .argument('[message...]', 'the message (words are joined with spaces)')
      .option('--session <id>', 'continue this session')
      .option('--json', 'print the ChatResponse as JSON (one line per message from stdin)')
      .option('-v, --verbose', 'also print each tool call and the planner, on stderr')
      .exitOverride(usageExit),
  ).action(async (words: string[], flags: ChatFlags) => {
    process.exitCode = await runChat(words, flags);
  });
}
