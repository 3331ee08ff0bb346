import { createReadStream } from 'node:fs';
import type { Command, CommanderError } from 'commander';
import type { ConfirmResponse, ToolCallReport } from '../../brain/api/index.js';
import { TokensFileError } from '../../brain/http/index.js';
import { ConfigError, RuntimeFileError } from '../../config/index.js';
import { TOOL_NAME_PATTERN } from '../../protocol/index.js';
import { ApiError, type ApiClient } from '../api-client.js';
import { addApiFlags, type ApiFlags } from '../flags.js';
import { ApiTargetError, openApiClient, type ApiTarget } from '../api-target.js';

/**
 * `caesar invoke <tool> '<json>'`, `caesar confirm <id>`, `caesar reject <id>`: one tool call
 * through the brain's policy gate, and the human answer to a call waiting for approval.
 * Also the helpers `caesar chat` shares: opening the client, describing failures.
 */

/** Exit codes of `invoke` / `confirm` / `reject` (and, but for 3, of `chat`). */
export const EXIT_OK = 0;
/** The brain answered with an error, the call did not succeed, or the brain is unreachable. */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** `invoke`: the call waits for a human (`caesar confirm <id>`). */
export const EXIT_CONFIRMATION = 3;

/** Largest tool input read from a file or stdin (the brain's default `api.body_limit`). */
const MAX_INPUT_BYTES = 1024 * 1024;

/** Where command output goes; tests pass collectors, the CLI passes the console. */
export interface ApiCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Read for `-` inputs and by `caesar chat` without a message. @default process.stdin */
  input?: NodeJS.ReadableStream;
}

export const consoleIo: ApiCliIo = {
  out: (l) => console.log(l),
  err: (l) => console.error(l),
};

export interface InvokeFlags extends ApiFlags {
  inputFile?: string;
  json?: boolean;
}

/** `caesar invoke`: exit 0 when the call ran, 3 when it waits for a human, 1 otherwise. */
export async function runInvoke(
  tool: string,
  json: string | undefined,
  flags: InvokeFlags,
  io: ApiCliIo = consoleIo,
): Promise<number> {
  const usage = (msg: string) => (io.err(`caesar invoke: ${msg}`), EXIT_USAGE);
  if (!TOOL_NAME_PATTERN.test(tool)) return usage(`'${tool}' is not a tool name`);
  if (json !== undefined && flags.inputFile !== undefined) {
    return usage('give the input as an argument or with --input-file, not both');
  }
  let input: unknown;
  try {
    input = await readInput(json, flags.inputFile, io);
  } catch (err) {
    return usage((err as Error).message);
  }
  return withClient('invoke', flags, io, async (client) => {
    const report = await client.invoke(tool, input);
    printReport(report, flags, io);
    if (report.outcome === 'ok') return EXIT_OK;
    return report.outcome === 'confirmation_required' ? EXIT_CONFIRMATION : EXIT_FAILED;
  });
}

/** `caesar confirm <id>` / `caesar reject <id>`: exit 0 when the call ran / was rejected. */
export async function runConfirm(
  id: string,
  approve: boolean,
  flags: ApiFlags & { json?: boolean },
  io: ApiCliIo = consoleIo,
): Promise<number> {
  const verb = approve ? 'confirm' : 'reject';
  if (id.length === 0 || id.length > 256) {
    io.err(`caesar ${verb}: expected a confirmation id`);
    return EXIT_USAGE;
  }
  return withClient(verb, flags, io, async (client) => {
    let report: ConfirmResponse;
    try {
      report = await client.confirm(id, approve);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
      io.err(
        `caesar ${verb}: no pending confirmation ${id} (expired, already used, or voided by a policy reload)`,
      );
      return EXIT_FAILED;
    }
    printReport(report, flags, io);
    // a planner turn waited for this call: the model read the result and went on
    if (report.chat !== undefined && flags.json !== true) io.out(report.chat.reply);
    return report.outcome === (approve ? 'ok' : 'rejected') ? EXIT_OK : EXIT_FAILED;
  });
}

/**
 * Opens the client the flags point at and runs `fn`; a failure to find or reach the brain,
 * or an error answer, becomes one line on stderr and exit 1.
 */
export async function withClient(
  command: string,
  flags: ApiFlags,
  io: ApiCliIo,
  fn: (client: ApiClient, target: ApiTarget) => Promise<number>,
): Promise<number> {
  let target: ApiTarget | undefined;
  try {
    const opened = await openApiClient(flags);
    target = opened.target;
    return await fn(opened.client, target);
  } catch (err) {
    io.err(`caesar ${command}: ${describeFailure(err, target)}`);
    return EXIT_FAILED;
  }
}

/**
 * One line for a failure to find, reach or be served by the brain; rethrows anything else
 * (a bug). Never includes the token.
 */
export function describeFailure(err: unknown, target: ApiTarget | undefined): string {
  const local =
    err instanceof ApiTargetError ||
    err instanceof TokensFileError ||
    err instanceof RuntimeFileError ||
    err instanceof ConfigError;
  if (local) return err.message;
  if (!(err instanceof ApiError)) throw err;
  if (err.status === undefined) {
    const hint = err.code === 'api_unreachable' ? target?.hint : undefined;
    return hint ? `cannot reach the brain at ${target?.url}: ${hint}` : err.message;
  }
  const what = `${err.status} ${err.code}: ${err.message}${detailsOf(err.details)}`;
  const req = err.requestId ? ` (request ${err.requestId})` : '';
  if (err.status === 401 && target) {
    return `the brain refused token '${target.tokenName}' from ${target.tokenFile} (${what})${req}`;
  }
  if (err.status === 413) return `the request is larger than the brain accepts (${what})${req}`;
  if (err.status === 429) {
    const wait = err.retryAfterMs === undefined ? '' : `; retry in ${err.retryAfterMs / 1000} s`;
    return `rate limited by the brain (${what})${wait}${req}`;
  }
  return `the brain answered ${what}${req}`;
}

/** `: path: message; …` for validation details of the `[{path, message}]` form. */
function detailsOf(details: unknown): string {
  if (!Array.isArray(details)) return '';
  const parts = details
    .slice(0, 5)
    .map((d: { path?: unknown; message?: unknown }) => {
      if (typeof d?.message !== 'string') return undefined;
      const path = Array.isArray(d.path)
        ? d.path.join('.')
        : typeof d.path === 'string'
          ? d.path
          : '';
      return `${path}: ${d.message}`;
    })
    .filter((p): p is string => p !== undefined);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

/** The report, as the person at the terminal reads it (or as JSON with `--json`). */
export function printReport(
  report: ToolCallReport,
  flags: ApiFlags & { json?: boolean },
  io: ApiCliIo,
): void {
  if (flags.json) {
    io.out(JSON.stringify(report, null, 2));
    return;
  }
  const outcome = report.outcome.replace('_', ' ');
  io.out(
    `${report.tool}: ${outcome} (decision ${report.decision_id}, ${Math.round(report.duration_ms)} ms)`,
  );
  if (report.outcome === 'ok') io.out(showValue(report.result));
  if (report.error) io.out(`error: ${report.error.code}: ${report.error.message}`);
  if (report.reason && !report.error) io.out(`reason: ${report.reason}`);
  if (report.rule) io.out(`rule: ${report.rule}`);
  if (report.outcome === 'confirmation_required' && report.confirmation) {
    confirmationLines(report.confirmation, flags).forEach((l) => io.out(l));
  }
}

/** What to run to approve or reject, with the flags that found this brain. */
export function confirmationLines(
  ticket: { id: string; summary: string; expires_at: string },
  flags: ApiFlags,
): string[] {
  const extra = [
    ['--data-dir', flags.dataDir],
    ['--config', flags.config],
    ['--api-url', flags.apiUrl],
    ['--token-file', flags.tokenFile],
    ['--token-name', flags.tokenName],
  ]
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .map(([flag, value]) => ` ${flag} ${shellQuote(value)}`)
    .join('');
  const id = shellQuote(ticket.id);
  return [
    `waiting for approval: ${ticket.summary}`,
    `confirmation ${ticket.id}, expires ${ticket.expires_at}`,
    `approve: caesar confirm ${id}${extra}`,
    `reject:  caesar reject ${id}${extra}`,
  ];
}

function showValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function shellQuote(value: string): string {
  return /^[\w./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** The tool input: the argument, a file, or stdin (`-`); `{}` when none is given. */
async function readInput(
  json: string | undefined,
  file: string | undefined,
  io: ApiCliIo,
): Promise<unknown> {
  let text: string;
  let from: string;
  if (json !== undefined && json !== '-') {
    [text, from] = [json, 'the input argument'];
  } else if (json === '-' || file === '-') {
    [text, from] = [await readAll(io.input ?? process.stdin, 'stdin'), 'stdin'];
  } else if (file !== undefined) {
    [text, from] = [await readAll(createReadStream(file), file), file];
  } else {
    return {};
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${from} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}

async function readAll(stream: NodeJS.ReadableStream, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.byteLength;
      if (size > MAX_INPUT_BYTES)
        throw new Error(`${name} holds more than ${MAX_INPUT_BYTES} bytes`);
      chunks.push(buf);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined) throw err;
    throw new Error(`cannot read ${name} (${code})`, { cause: err });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Adds `caesar invoke`, `caesar confirm` and `caesar reject`. */
export function register(program: Command): void {
  const usageExit = (err: CommanderError): never =>
    process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
  const done = (code: number) => {
    process.exitCode = code;
  };

  addApiFlags(
    program
      .command('invoke')
      .description('run one tool call through the brain (policy, audit, dispatch)')
      .argument('<tool>', 'tool name, e.g. calculator')
      .argument('[json]', 'tool input as JSON, or - to read it from stdin (default {})')
      .option('--input-file <file>', 'read the input JSON from a file (- for stdin)')
      .option('--json', 'print the ToolCallReport as JSON')
      .exitOverride(usageExit),
  ).action(async (tool: string, json: string | undefined, flags: InvokeFlags) =>
    done(await runInvoke(tool, json, flags)),
  );

  for (const [name, approve] of [
    ['confirm', true],
    ['reject', false],
  ] as const) {
    addApiFlags(
      program
        .command(name)
        .description(
          approve
            ? 'approve a tool call waiting for confirmation: it runs once'
            : 'reject a tool call waiting for confirmation: it never runs',
        )
        .argument('<id>', 'the confirmation id `caesar invoke` or `caesar chat` printed')
        .option('--json', 'print the ToolCallReport as JSON')
        .exitOverride(usageExit),
    ).action(async (id: string, flags: ApiFlags & { json?: boolean }) =>
      done(await runConfirm(id, approve, flags)),
    );
  }
}
