import {
  heldCallLines,
  TokensFileError,
  type ConfirmationTicket,
  type HeldCall,
  type ToolCallReport,
} from '../../brain/api/index.js';
import { ConfigError, RuntimeFileError } from '../../config/index.js';
import { ApiError, type ApiClient } from './client.js';
import { ApiTargetError, openApiClient, type ApiTarget } from './target.js';
import { EXIT_USAGE } from '../program/exit.js';
import type { ApiFlags } from '../program/flags.js';
import { decideLines } from './held-call-lines.js';
import { terminal } from '../program/terminal.js';
import { terminalLine } from '../../text/terminal-text.js';

/**
 * What the commands that talk to the brain's HTTP API share (`chat`, `invoke`, `confirm`,
 * `reject`): exit codes, where output goes, opening the client, one line per failure, and
 * how a tool call's report is printed.
 */

/** Exit codes of `invoke` / `confirm` / `reject` (and, but for 3, of `chat`). */
export const EXIT_OK = 0;
/** The brain answered with an error, the call did not succeed, or the brain is unreachable. */
export const EXIT_FAILED = 1;
export { EXIT_USAGE };
/** `invoke`: the call waits for a human (`caesar confirm <id>`). */
export const EXIT_CONFIRMATION = 3;

/** Where command output goes; tests pass collectors, the CLI passes `terminal` (ADR 0064). */
export interface ApiCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Read for `-` inputs and by `caesar chat` without a message. @default process.stdin */
  input?: NodeJS.ReadableStream;
}

export const consoleIo: ApiCliIo = { out: terminal.out, err: terminal.err };

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
 * (a bug). Never includes the token. What the brain relays (its message, a field path) is
 * shown escaped, on that one line.
 */
export function describeFailure(err: unknown, target: ApiTarget | undefined): string {
  return terminalLine(failureText(err, target));
}

function failureText(err: unknown, target: ApiTarget | undefined): string {
  const local =
    err instanceof ApiTargetError ||
    err instanceof TokensFileError ||
    err instanceof RuntimeFileError ||
    err instanceof ConfigError;
  if (local) return err.message;
  if (!(err instanceof ApiError)) throw err;
  if (err.httpStatus === undefined) {
    const hint = err.code === 'api_unreachable' ? target?.hint : undefined;
    return hint ? `cannot reach the brain at ${target?.url}: ${hint}` : err.message;
  }
  const what = `${err.httpStatus} ${err.remoteCode}: ${err.message}${detailsOf(err.details)}`;
  const req = err.requestId ? ` (request ${err.requestId})` : '';
  if (err.httpStatus === 401 && target) {
    return `the brain refused token '${target.tokenName}' from ${target.tokenFile} (${what})${req}`;
  }
  if (err.httpStatus === 413) return `the request is larger than the brain accepts (${what})${req}`;
  if (err.httpStatus === 429) {
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

/**
 * The report, as the person at the terminal reads it (or as JSON with `--json`). Every line
 * but the result's body holds text from outside (the tool's name, a worker's message, the
 * model's input in a confirmation): each is one line, escaped (ADR 0064).
 */
export function printReport(
  report: ToolCallReport,
  flags: ApiFlags & { json?: boolean },
  io: ApiCliIo,
): void {
  if (flags.json) {
    io.out(JSON.stringify(report, null, 2));
    return;
  }
  const line = (text: string) => io.out(terminalLine(text));
  const outcome = report.outcome.replace('_', ' ');
  line(
    `${report.tool}: ${outcome} (decision ${report.decision_id}, ${Math.round(report.duration_ms)} ms)`,
  );
  if (report.outcome === 'ok') io.out(showValue(report.result));
  if (report.error) line(`error: ${report.error.code}: ${report.error.message}`);
  if (report.reason && !report.error) line(`reason: ${report.reason}`);
  if (report.rule) line(`rule: ${ruleLine(report)}`);
  if (report.outcome === 'confirmation_required' && report.confirmation) {
    confirmationLines(report.confirmation, flags).forEach((l) => io.out(l));
  }
}

/**
 * `<id> (<file:line:col> in policy sha256 <12 hex>)`: the rule as the enforced policy has it
 * (a brain before issue 15 sends the id alone).
 */
function ruleLine(report: ToolCallReport): string {
  if (report.rule_at === undefined || report.policy_sha256 === undefined) return report.rule ?? '';
  return `${report.rule} (${report.rule_at} in policy sha256 ${report.policy_sha256.slice(0, 12)})`;
}

/**
 * A held call: what would run, who asked and what the model had read (ADR 0068), and what
 * to run to approve or reject it (for a model's call, also to stop its turn), with the
 * flags that found this brain: one line each, escaped (the summary quotes the model's input).
 */
export function confirmationLines(
  ticket: ConfirmationTicket & HeldCall,
  flags: ApiFlags,
): string[] {
  return [
    terminalLine(`waiting for approval: ${ticket.summary}`),
    ...heldCallLines(ticket),
    terminalLine(`confirmation ${ticket.id}, expires ${ticket.expires_at}`),
    ...decideLines(ticket.id, flags, ticket.asked_by?.kind === 'model'),
  ];
}

function showValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
