import { ERROR_CATALOGUE, type ErrorKind } from './catalogue.js';
import type { ErrorCode } from './caesar-error.js';

/** The command that rewrites the generated part of docs/errors.md. */
export const ERRORS_REGENERATE_COMMAND = 'node dist/src/errors/gen-docs.js';

const BEGIN = `<!-- BEGIN generated from ERROR_CATALOGUE (src/errors/catalogue.ts) by \`${ERRORS_REGENERATE_COMMAND}\`: edit the catalogue, not this table -->`;
const END = '<!-- END generated -->';

const SECTIONS: readonly { kind: ErrorKind; title: string; intro: string }[] = [
  {
    kind: 'worker',
    title: 'Worker side (in reply envelopes)',
    intro: 'A worker answers a call with one of these; the brain passes it on in the report.',
  },
  {
    kind: 'brain',
    title: 'Brain side (in tool call reports)',
    intro:
      'Produced by the gateway and the dispatcher; a call never reached a handler, or its reply was unusable.',
  },
  {
    kind: 'http',
    title: 'HTTP API (the request itself)',
    intro:
      'The HTTP layer refused the request before any tool was involved ([api.md](api.md#errors)).',
  },
  {
    kind: 'local',
    title: 'Local: start-up, files, the SDK and the CLI',
    intro:
      'Never on a wire: they stop the brain, a worker or a CLI command, and the message names the file, key or flag at fault. Should one reach the HTTP layer, the answer has its status and its meaning as the message.',
  },
];

/** One markdown table, padded the way prettier pads it, so `npm run format` leaves it be. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function rowOf(code: ErrorCode): string[] {
  const e = ERROR_CATALOGUE[code];
  const message = e.message.replaceAll('|', '\\|');
  return [`\`${code}\``, String(e.status), e.retryable ? 'yes' : 'no', message, e.summary, e.fix];
}

/** The generated part of docs/errors.md: one table per kind, every code once. */
function renderErrorTables(): string {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  const parts = SECTIONS.map(({ kind, title, intro }) => {
    const rows = codes.filter((c) => ERROR_CATALOGUE[c].kind === kind).map(rowOf);
    const head = ['code', 'status', 'retryable', 'message', 'meaning', 'what to do'];
    return `## ${title}\n\n${intro}\n\n${table(head, rows)}`;
  });
  return [BEGIN, ...parts, END].join('\n\n');
}

/**
 * docs/errors.md with its generated part replaced by the catalogue's tables; the prose
 * around it stays as written.
 * @throws {Error} when the page has no generated part to replace.
 */
export function renderErrorsDoc(current: string | undefined): string {
  const text = current ?? '';
  const start = text.indexOf('<!-- BEGIN generated');
  const end = text.indexOf(END);
  if (start < 0 || end < start) {
    throw new Error(`docs/errors.md has no "${BEGIN.slice(0, 20)}…${END}" block to fill`);
  }
  return text.slice(0, start) + renderErrorTables() + text.slice(end + END.length);
}
