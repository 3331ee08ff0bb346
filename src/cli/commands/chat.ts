import { createInterface } from 'node:readline';
import type { Command, CommanderError } from 'commander';
import {
  ChatRequestSchema,
  type ChatEvent,
  type ChatResponse,
  type ToolCallReport,
} from '../../brain/api/index.js';
import type { ApiClient } from '../api-client.js';
import { addApiFlags, type ApiFlags } from '../flags.js';
import type { ApiTarget } from '../api-target.js';
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
 * across messages, so the brain sees one conversation. The reply streams: its text is
 * printed as it arrives and each tool call as a line on stderr when it returns
 * (`· web_search → ok (812 ms)`; the full `[tool] …` line with `--verbose`).
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
  /**
   * Writes streamed reply text to stdout as it arrives, adding no newline. Without it, the
   * streamed text is printed as one line (`out`) when the turn ends.
   * @default process.stdout.write
   */
  write?(text: string): void;
}

const chatConsoleIo: ChatCliIo = {
  ...consoleIo,
  write: (text) => {
    process.stdout.write(text);
  },
};

const PROMPT = 'you> ';
const SESSION_ID = ChatRequestSchema.shape.session_id;

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

  /**
   * Sends one message and prints the answer (streamed, but with `--json`); false (after
   * saying why) on a failure.
   */
  async send(message: string, jsonLines: boolean): Promise<boolean> {
    const request = {
      message,
      ...(this.session === undefined ? {} : { session_id: this.session }),
    };
    const printer = this.flags.json ? undefined : new TurnPrinter(this.io, this.flags.verbose);
    let res: ChatResponse;
    try {
      res = await this.client.chat(request, printer && { onEvent: (e) => printer.event(e) });
    } catch (err) {
      printer?.endLine();
      this.io.err(`caesar chat: ${describeFailure(err, this.target)}`);
      return false;
    }
    this.session = res.session_id;
    if (printer === undefined) {
      this.io.out(jsonLines ? JSON.stringify(res) : JSON.stringify(res, null, 2));
      return true;
    }
    printer.done(res);
    for (const call of res.tool_calls) {
      if (call.outcome !== 'confirmation_required' || !call.confirmation) continue;
      confirmationLines(call.confirmation, this.flags).forEach((l) => this.io.err(l));
    }
    return true;
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

/**
 * Prints one turn as it streams: text on stdout as it arrives, a line on stderr per tool
 * call when its report arrives, and at the end the reply if no text came (an intent or
 * offline reply, or a brain that does not stream) and, with `--verbose`, how it came about.
 */
class TurnPrinter {
  #events = 0;
  #text = '';
  /** Streamed text ends mid-line: a stderr line must start a new one first. */
  #lineOpen = false;

  constructor(
    private readonly io: ChatCliIo,
    private readonly verbose = false,
  ) {}

  event(e: ChatEvent): void {
    this.#events++;
    if (e.type === 'text' && e.delta !== '') {
      this.#text += e.delta;
      if (this.io.write === undefined) return;
      this.io.write(e.delta);
      this.#lineOpen = !e.delta.endsWith('\n');
    } else if (e.type === 'tool_result') {
      this.#toolLine(e.report);
    }
  }

  done(res: ChatResponse): void {
    if (this.#events === 0) res.tool_calls.forEach((c) => this.#toolLine(c));
    if (this.#text === '') this.io.out(res.reply);
    else if (this.io.write === undefined) this.io.out(this.#text);
    else this.endLine();
    if (!this.verbose) return;
    const capped = res.capped ? ', capped' : '';
    this.io.err(
      `[chat] session ${res.session_id}, planner ${res.planner}, ${res.iterations} iteration(s)${capped}`,
    );
  }

  /** Ends a line of streamed text, so what follows starts on its own line. */
  endLine(): void {
    if (!this.#lineOpen) return;
    this.io.write?.('\n');
    this.#lineOpen = false;
  }

  #toolLine(c: ToolCallReport): void {
    this.endLine();
    const ms = `${Math.round(c.duration_ms)} ms`;
    if (!this.verbose) {
      this.io.err(`· ${c.tool} → ${c.outcome}${c.error ? `: ${c.error.code}` : ''} (${ms})`);
      return;
    }
    const why = c.error ? `: ${c.error.code}` : c.reason ? `: ${c.reason}` : '';
    this.io.err(`[tool] ${c.tool} ${c.outcome}${why} (decision ${c.decision_id}, ${ms})`);
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
      .option(
        '-v, --verbose',
        'print each tool call in full (decision id) and the planner, on stderr',
      )
      .exitOverride(usageExit),
  ).action(async (words: string[], flags: ChatFlags) => {
    process.exitCode = await runChat(words, flags);
  });
}
