import type { ChatEvent, ChatResponse, ToolCallReport } from '../../../brain/api/index.js';
import { terminalLine } from '../../../text/terminal-text.js';
import type { ChatCliIo } from './io.js';

/**
 * Prints one turn as it streams: text on stdout as it arrives, a line on stderr per tool
 * call when its report arrives, and at the end the reply if no text came (an intent or
 * offline reply, or a brain that does not stream) and, with `--verbose`, how it came about.
 * The reply is the model's and keeps its line breaks; the io escapes its controls. A tool
 * line holds names the model chose: it is escaped here as one line (ADR 0064).
 */
export class TurnPrinter {
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
      terminalLine(
        `[chat] session ${res.session_id}, planner ${res.planner}, ${res.iterations} iteration(s)${capped}`,
      ),
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
      this.io.err(
        terminalLine(`· ${c.tool} → ${c.outcome}${c.error ? `: ${c.error.code}` : ''} (${ms})`),
      );
      return;
    }
    const why = c.error ? `: ${c.error.code}` : c.reason ? `: ${c.reason}` : '';
    this.io.err(
      terminalLine(`[tool] ${c.tool} ${c.outcome}${why} (decision ${c.decision_id}, ${ms})`),
    );
  }
}
