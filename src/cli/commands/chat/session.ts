import { createInterface } from 'node:readline';
import { ChatRequestSchema, type ChatResponse } from '../../../brain/api/index.js';
import type { ApiClient } from '../../brain-client/client.js';
import {
  confirmationLines,
  describeFailure,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  type ApiCliIo,
} from '../../brain-client/command.js';
import type { ApiTarget } from '../../brain-client/target.js';
import { terminalLine } from '../../../text/terminal-text.js';
import type { ChatCliIo, ChatFlags } from './io.js';
import { setupLines } from './setup.js';
import { TurnPrinter } from './turn-printer.js';

const PROMPT = 'you> ';

/** The session id pattern of the API contract, for `--session`. */
export const SESSION_ID = ChatRequestSchema.shape.session_id;

/** `/exit` or `/quit`: ends a session, typed or piped. */
function isExit(text: string): boolean {
  return text === '/exit' || text === '/quit';
}

export function usage(io: ApiCliIo, msg: string): number {
  io.err(`caesar chat: ${msg}`);
  return EXIT_USAGE;
}

/**
 * One conversation with the brain: the session id is kept across messages, so the brain
 * sees one conversation. A message, one per line from piped stdin, or a terminal session.
 */
export class ChatSession {
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
    // `--session <name>` continues that session, or starts it under that name (ADR 0056);
    // a session the brain started is only ever continued
    const named = this.session !== undefined && this.session === this.flags.session;
    const request = {
      message,
      ...(this.session === undefined ? {} : { session_id: this.session }),
      ...(named ? { create_session: true } : {}),
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
      // the rule that held it too: a chat prints no report lines of its own (ADR 0068)
      const held = { ...call.confirmation, rule: call.rule, rule_at: call.rule_at };
      const lines = confirmationLines({ ...held, reason: call.reason }, this.flags);
      lines.forEach((l) => this.io.err(l));
    }
    return true;
  }

  /**
   * Piped stdin: one message per line, and the terminal's commands (`/tools`, `/session`,
   * `/exit`) run as they do there; stops at the first failed message.
   */
  async lines(): Promise<number> {
    const rl = createInterface({ input: this.io.input ?? process.stdin, terminal: false });
    let sent = 0;
    try {
      for await (const line of rl) {
        const text = line.trim();
        if (text === '') continue;
        sent++;
        if (isExit(text)) break;
        if (text.startsWith('/')) await this.command(text);
        else if (!(await this.send(text, true))) return EXIT_FAILED;
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
        if (isExit(text)) break;
        if (text.startsWith('/')) await this.command(text);
        else if (text !== '') await this.send(text, false);
        rl.prompt();
      }
    } finally {
      rl.close();
    }
    return EXIT_OK;
  }

  /** A `/` command typed, piped or given as the message; false when it failed. */
  async command(text: string): Promise<boolean> {
    const words = text.split(/\s+/);
    if (text === '/session') {
      this.io.out(
        this.session === undefined ? 'no session yet' : terminalLine(`session ${this.session}`),
      );
    } else if (text === '/tools') {
      return this.printTools();
    } else if (words[0] === '/help' && words[1] === 'setup' && words.length === 2) {
      return this.printSetup();
    } else {
      this.io.out(
        '/tools lists the tools, /help setup what each missing capability needs, ' +
          '/session shows the session id, /exit (or Ctrl-D) quits',
      );
    }
    return true;
  }

  /** `/help setup`: the brain's setup details (`GET /v1/capabilities`). */
  private async printSetup(): Promise<boolean> {
    try {
      for (const line of setupLines(await this.client.capabilities())) this.io.out(line);
      return true;
    } catch (err) {
      this.io.err(`caesar chat: ${describeFailure(err, this.target)}`);
      return false;
    }
  }

  private async printTools(): Promise<boolean> {
    try {
      const tools = await this.client.tools();
      if (tools.length === 0) this.io.out('no tools connected');
      for (const t of tools) {
        const up = t.instances.length;
        const row = `${t.name.padEnd(16)} ${t.policy.outcome.padEnd(12)} ${up} instance(s)`;
        this.io.out(terminalLine(row));
      }
      return true;
    } catch (err) {
      this.io.err(`caesar chat: ${describeFailure(err, this.target)}`);
      return false;
    }
  }
}
