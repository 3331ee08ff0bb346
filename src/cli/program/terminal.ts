import { terminalText } from '../../text/terminal-text.js';

/**
 * The one way the CLI writes to the terminal (ADR 0064): every line a command prints goes
 * through here, with every control character a terminal would act on escaped
 * (`terminalText`: ESC, BEL, C1, bidi overrides, tabs, a lone CR). Line breaks are kept: a
 * reply or a JSON document may run over lines. Where text from outside lands in a one-line
 * output (a table cell, an audit row, a tool line, an error message), the command escapes
 * it with `terminalLine` first, so a line feed in it cannot start a line of its own.
 * eslint keeps `console` and `process.stdout.write` out of the rest of src/cli.
 */
export const terminal = {
  /** A line (or a body of lines) on stdout. */
  out: (text: string): void => console.log(terminalText(text)),
  /** A line (or a body of lines) on stderr. */
  err: (text: string): void => console.error(terminalText(text)),
  /** Streamed text on stdout, as it arrives, with no newline added. */
  write: (text: string): void => {
    process.stdout.write(terminalText(text));
  },
  /** Resolves once everything printed so far is handed to the OS (before `process.exit`). */
  flushed: async (): Promise<void> => {
    const drained = (stream: NodeJS.WriteStream) =>
      new Promise<void>((resolve) => stream.write('', () => resolve()));
    await Promise.all([drained(process.stdout), drained(process.stderr)]);
  },
};
