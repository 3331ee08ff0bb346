import { createRequire } from 'node:module';
import type { prettyFactory as PrettyFactory } from 'pino-pretty';
import { readJsonValue, terminalLine } from '../text/index.js';

/**
 * Readable log lines for a person at a terminal (ADR 0076): one line per record, `time
 * LEVEL component: message key=value…`, made by pino-pretty's formatter in this thread (no
 * transport worker, so a crash loses no line), then escaped for the terminal and bounded.
 * The record it formats is the one the JSON log would have written: redaction ran before.
 * pino-pretty loads on the first readable line only (about 1 MiB of heap, 100-190 ms on a
 * loaded 2-core x86 box): a process that writes JSON (every child of `caesar up`, a service
 * under systemd) never loads it.
 */

/** `log.format` (src/config): readable on a terminal (`auto`), or always one of the two. */
export type LogFormat = 'auto' | 'pretty' | 'json';

/** A readable line longer than this is cut, saying how much was left out and where it is. */
export const MAX_PRETTY_LINE_CHARS = 1000;

/** One log record as pino writes it: `level`, `time`, `msg`, bindings and fields. */
export type LogRecord = Record<string, unknown>;

/** The bindings that name what wrote the line; shown before the message, not as fields. */
const WHO_KEYS = ['component', 'process'] as const;

let formatter: ((record: LogRecord) => string) | undefined;

/** pino-pretty's formatter, loaded (synchronously: it is CommonJS) on first use. */
function format(record: LogRecord): string {
  if (formatter === undefined) {
    const require = createRequire(import.meta.url);
    const { prettyFactory } = require('pino-pretty') as { prettyFactory: typeof PrettyFactory };
    formatter = prettyFactory({
      colorize: false,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: ['pid', 'hostname', ...WHO_KEYS].join(','),
      messageFormat: (log, messageKey) => {
        const who = WHO_KEYS.map((k) => log[k]).find((v) => typeof v === 'string');
        const msg = log[messageKey];
        const text = typeof msg === 'string' ? msg : '';
        return who === undefined ? text : `${who}: ${text}`;
      },
    });
  }
  return formatter(record);
}

/** `auto` is `pretty` when `stream` is a terminal, `json` otherwise. */
export function resolveLogFormat(
  setting: LogFormat | undefined,
  stream: NodeJS.WritableStream,
): 'pretty' | 'json' {
  if (setting === 'pretty' || setting === 'json') return setting;
  return (stream as { isTTY?: boolean }).isTTY === true ? 'pretty' : 'json';
}

/**
 * One record as one readable line, without its line break: every control character
 * escaped (a message or field cannot retitle, recolour or forge a line of the terminal,
 * ADR 0064), and at most {@link MAX_PRETTY_LINE_CHARS} characters.
 */
export function prettyLine(record: LogRecord): string {
  return bounded(terminalLine(format(record).replace(/\r?\n$/, '')));
}

/**
 * A JSON log line as a readable line; a line that is not a JSON object comes back escaped
 * as it is (a child's own text, a stack trace).
 */
export function prettyText(line: string): string {
  const record = parseRecord(line);
  return record === undefined ? bounded(terminalLine(line)) : prettyLine(record);
}

/** The record of a JSON log line, or undefined when the line is not one. */
export function parseRecord(line: string): LogRecord | undefined {
  if (!line.startsWith('{')) return undefined;
  // a child's line, read with the one JSON ladder: one it refuses is shown as text
  const value = readJsonValue(line);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as LogRecord)
    : undefined;
}

function bounded(line: string): string {
  if (line.length <= MAX_PRETTY_LINE_CHARS) return line;
  const cut = line.length - MAX_PRETTY_LINE_CHARS;
  return `${line.slice(0, MAX_PRETTY_LINE_CHARS)}… (${cut} more characters; CAESAR_LOG__FORMAT=json writes the whole record)`;
}

/**
 * pino's destination for readable lines: each JSON line pino writes is formatted and
 * written to `out` at once (process.stderr writes synchronously to a terminal or file).
 * `hide`: records a command prints as its own readable line, not written twice.
 */
export function prettyDestination(
  out: NodeJS.WritableStream,
  hide?: (record: LogRecord) => boolean,
): { write: (line: string) => void } {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) {
        if (line === '') continue;
        const record = parseRecord(line);
        if (record !== undefined && hide?.(record) === true) continue;
        out.write(`${record === undefined ? bounded(terminalLine(line)) : prettyLine(record)}\n`);
      }
    },
  };
}
