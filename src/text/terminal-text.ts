/**
 * Text from outside (a model's reply, a tool's name or result, a worker's host, an audit
 * row, a message the brain relays) made safe to print on a terminal (ADR 0064). A terminal
 * acts on some characters instead of showing them: ESC starts a sequence that can retitle
 * the window, recolour or clear the screen, or (in some terminals) write a file or set the
 * clipboard; BEL ends an OSC sequence; C1 controls (U+0080-U+009F) are the same sequences in
 * one code point (U+009B is CSI); the bidi overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069) make text read in another order than it is stored; and a line break inside
 * a field starts a line that reads as one the program printed. Each such character is shown
 * as its escape instead: `\n`, `\t`, `\r` for those three, `\uXXXX` for every other.
 *
 * `\uXXXX` is also how JSON writes an escaped character, so escaping a JSON document (which
 * `JSON.stringify` leaves with DEL, C1 and bidi characters raw inside its strings) keeps it
 * valid JSON that reads back as the same value. A backslash is left as it is: text that holds
 * a literal `\u001b` shows the same as an escaped ESC, and nothing the terminal acts on.
 *
 * Pure and linear: one pass over the text, whatever its length.
 */

/** Everything a terminal would act on, and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is this module's job
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same, but a line feed (alone, or after a carriage return) is a line break to keep. */
const UNSAFE_IN_TEXT =
  // eslint-disable-next-line no-control-regex -- as above
  /\r\n|[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function escapeChar(ch: string): string {
  return NAMED[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * One field or one line (an audit row, a table cell, a host name, an error message): every
 * control escaped, line breaks and tabs too, so it can never become two lines.
 */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escapeChar);
}

/**
 * A body that may run over several lines (a chat reply, a tool's text result, a JSON
 * document): line breaks kept (`\r\n` as `\n`), every other control escaped, tabs too.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, (m) => (m === '\r\n' ? '\n' : escapeChar(m)));
}
