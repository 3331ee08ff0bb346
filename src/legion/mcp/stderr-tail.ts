import { terminalLine } from '../../text/index.js';

/** Lines kept, and characters kept of each. */
const MAX_LINES = 20;
const MAX_LINE_CHARS = 500;

/**
 * The last lines an MCP server wrote to stderr (ADR 0095): bounded in lines and in characters
 * per line, each escaped (`terminalLine`) since it is outside text that reaches the log and a
 * terminal. A line that never ends is cut and counted as one.
 */
export class StderrTail {
  readonly #lines: string[] = [];
  #partial = '';

  /** Takes a chunk; `onLine` hears each line it completes. */
  add(chunk: string, onLine: (line: string) => void): void {
    const parts = (this.#partial + chunk).split(/\r?\n/);
    this.#partial = (parts.pop() ?? '').slice(0, MAX_LINE_CHARS);
    for (const part of parts) {
      if (part.trim() === '') continue;
      const line = terminalLine(part.slice(0, MAX_LINE_CHARS));
      this.#lines.push(line);
      if (this.#lines.length > MAX_LINES) this.#lines.shift();
      onLine(line);
    }
  }

  /** The kept lines, oldest first. */
  lines(): string[] {
    return [...this.#lines];
  }
}
