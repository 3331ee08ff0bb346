import {
  AuditError,
  AuditReader,
  formatRecord,
  recordToJsonLine,
  type AuditRecord,
} from '../../../audit/index.js';
import { ConfigError, RuntimeFileError } from '../../../config/index.js';
import { EXIT_USAGE } from '../../program/exit.js';
import { loadClientConfig } from '../../program/load-config.js';
import { terminalLine } from '../../../text/terminal-text.js';
import { terminal } from '../../program/terminal.js';
import type { DbOptions } from './flags.js';

/**
 * What every `caesar audit ...` subcommand's runner shares: which log it opens, where its
 * output goes, how a failure ends it, and its exit codes. The flags they share are in
 * `flags.ts` and `filters.ts`.
 */

/** Exit codes of `caesar audit ...`: ok, a failed verification or operation, a usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export { EXIT_USAGE };

/**
 * The log to open: `--db`, else `audit.file` from env / caesar.yaml, else the running
 * stack's (`audit_db` of a live `<data-dir>/runtime.json`), else `<data-dir>/audit.db`.
 * @throws {ConfigError} {@link RuntimeFileError}
 */
export async function resolveAuditDb(opts: DbOptions): Promise<string> {
  if (opts.db !== undefined) return opts.db;
  const { config } = await loadClientConfig({ config: opts.config, dataDir: opts.dataDir });
  return config.audit.file;
}

/** Where command output goes; tests pass collectors, the CLI passes `terminal` (ADR 0064). */
export interface AuditCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Ends `tail --follow`. */
  signal?: AbortSignal;
}

export const consoleIo: AuditCliIo = { out: terminal.out, err: terminal.err };

/**
 * One line per row, whatever its columns hold: a row is written by whatever may append (a
 * tool name a model chose, a payload a tool returned) or by hand, so each is escaped as one
 * line (ADR 0064); a JSON line reads back as the stored value.
 */
export function printRecords(
  records: readonly AuditRecord[],
  json: boolean | undefined,
  io: AuditCliIo,
): void {
  for (const r of records) io.out(terminalLine(json ? recordToJsonLine(r) : formatRecord(r)));
}

/** Runs `fn` with a read-only view of the log; operational errors become exit code 1. */
export async function withReader(
  opts: DbOptions,
  io: AuditCliIo,
  fn: (reader: AuditReader) => Promise<number> | number,
): Promise<number> {
  let reader: AuditReader;
  try {
    reader = AuditReader.open(await resolveAuditDb(opts));
  } catch (err) {
    return failed(err, io);
  }
  try {
    return await fn(reader);
  } catch (err) {
    return failed(err, io);
  } finally {
    reader.close();
  }
}

/** An audit, config or runtime.json error: one line and exit 1; anything else is a bug. */
export function failed(err: unknown, io: AuditCliIo): number {
  const known =
    err instanceof AuditError || err instanceof ConfigError || err instanceof RuntimeFileError;
  if (!known) throw err;
  io.err(`caesar audit: ${err.message}`);
  return EXIT_FAILED;
}
