import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, type Command, type CommanderError } from 'commander';
import {
  AUDIT_EVENT_TYPES,
  AUDIT_OUTCOMES,
  AuditError,
  AuditReader,
  formatRecord,
  formatStats,
  formatVerifyReport,
  isAuditEventType,
  parseChainHead,
  recordToJsonLine,
  restoreAuditLog,
  type AuditEventType,
  type AuditFilter,
  type AuditOutcome,
  type AuditQuery,
  type AuditRecord,
  type ChainHead,
  type HeadCheck,
} from '../../audit/index.js';
import { ConfigError, RuntimeFileError } from '../../config/index.js';
import { createLogger } from '../../log/index.js';
import { loadClientConfig } from '../load-config.js';

/** Exit codes of `caesar audit ...`: ok, a failed verification or operation, a usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/**
 * The built-in default log, `./var/audit.db`: what {@link resolveAuditDb} ends at when no
 * flag, env var, caesar.yaml or running stack names another one.
 */
export function defaultAuditDbPath(cwd: string = process.cwd()): string {
  return resolve(cwd, 'var', 'audit.db');
}

/** Which log a command opens. */
export interface DbOptions {
  /** The SQLite file; beats everything else. */
  db?: string;
  /** Where runtime.json and the default `audit.db` live. @default config `data_dir`, `./var` */
  dataDir?: string;
  /** caesar.yaml to read `audit.file` and `data_dir` from. */
  config?: string;
}

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

/** Where command output goes; tests pass collectors, the CLI passes the console. */
export interface AuditCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Ends `tail --follow`. */
  signal?: AbortSignal;
}

const consoleIo: AuditCliIo = { out: (l) => console.log(l), err: (l) => console.error(l) };

export interface FilterOptions extends DbOptions {
  type?: string[];
  tool?: string;
  decision?: string;
  session?: string;
  outcome?: AuditOutcome;
  actor?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

export interface QueryOptions extends FilterOptions {
  afterSeq?: number;
  limit?: number;
  oldest?: boolean;
}

export interface TailOptions extends FilterOptions {
  lines?: number;
  follow?: boolean;
  intervalMs?: number;
}

export interface ExportOptions extends FilterOptions {
  format?: string;
  out?: string;
}

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`/`--until`: an ISO-8601 time, or a duration ago such as `15m`, `2h`, `7d`. */
export function parseTime(text: string, now: Date = new Date()): string {
  const rel = DURATION.exec(text);
  if (rel) {
    const ms = Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS];
    return new Date(now.getTime() - ms).toISOString();
  }
  const t = Date.parse(text);
  if (Number.isNaN(t)) {
    throw new InvalidArgumentError('expected an ISO-8601 time or a duration like 15m, 2h, 7d');
  }
  return new Date(t).toISOString();
}

function toFilter(o: FilterOptions): AuditFilter {
  return {
    ...(o.type?.length ? { types: o.type as AuditEventType[] } : {}),
    ...(o.tool !== undefined ? { tool: o.tool } : {}),
    ...(o.decision !== undefined ? { decisionId: o.decision } : {}),
    ...(o.session !== undefined ? { sessionId: o.session } : {}),
    ...(o.outcome !== undefined ? { outcome: o.outcome } : {}),
    ...(o.actor !== undefined ? { actor: o.actor } : {}),
    ...(o.since !== undefined ? { since: o.since } : {}),
    ...(o.until !== undefined ? { until: o.until } : {}),
  };
}

function printRecords(records: readonly AuditRecord[], json: boolean | undefined, io: AuditCliIo) {
  for (const r of records) io.out(json ? recordToJsonLine(r) : formatRecord(r));
}

/** Runs `fn` with a read-only view of the log; operational errors become exit code 1. */
async function withReader(
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

function failed(err: unknown, io: AuditCliIo): number {
  const known =
    err instanceof AuditError || err instanceof ConfigError || err instanceof RuntimeFileError;
  if (!known) throw err;
  io.err(`caesar audit: ${err.message}`);
  return EXIT_FAILED;
}

/** `caesar audit query`: filtered rows, newest first (or oldest first from `--after-seq`). */
export function runAuditQuery(opts: QueryOptions, io: AuditCliIo = consoleIo): Promise<number> {
  return withReader(opts, io, (reader) => {
    const query: AuditQuery = {
      ...toFilter(opts),
      limit: opts.limit ?? 100,
      ...(opts.afterSeq !== undefined ? { afterSeq: opts.afterSeq } : {}),
      ...(opts.oldest ? { order: 'oldest' as const } : {}),
    };
    printRecords(reader.query(query), opts.json, io);
    return EXIT_OK;
  });
}

/** `caesar audit tail [-f]`: the last rows, oldest first; with `-f`, new rows as they land. */
export function runAuditTail(opts: TailOptions, io: AuditCliIo = consoleIo): Promise<number> {
  return withReader(opts, io, async (reader) => {
    const filter = toFilter(opts);
    const last = reader.query({ ...filter, limit: opts.lines ?? 20 }).reverse();
    printRecords(last, opts.json, io);
    let afterSeq = last.at(-1)?.seq ?? reader.stats().lastSeq ?? 0;
    while (opts.follow && !io.signal?.aborted) {
      try {
        await sleep(opts.intervalMs ?? 500, undefined, { signal: io.signal });
      } catch {
        break; // aborted: Ctrl-C ends a follow cleanly
      }
      const fresh = reader.query({ ...filter, afterSeq, limit: 1000 });
      printRecords(fresh, opts.json, io);
      afterSeq = fresh.at(-1)?.seq ?? afterSeq;
    }
    return EXIT_OK;
  });
}

/**
 * `caesar audit verify`: walks the chain; exit 1 and the first bad seq when tampered. With
 * `--expect-head SEQ:HASH` (a head recorded earlier) it also fails when that row is gone
 * (the log was truncated) or has another hash (the log was rebuilt).
 */
export function runAuditVerify(
  opts: DbOptions & { json?: boolean; threads?: number; expectHead?: string },
  io: AuditCliIo = consoleIo,
): Promise<number> {
  let expected: ChainHead | undefined;
  if (opts.expectHead !== undefined) {
    expected = parseChainHead(opts.expectHead);
    if (expected === undefined) {
      io.err(
        `caesar audit verify: --expect-head must be SEQ:HASH (a seq and 64 lower-case hex digits, as \`caesar audit verify\` prints them), got '${opts.expectHead}'`,
      );
      return Promise.resolve(EXIT_USAGE);
    }
  }
  return withReader(opts, io, async (reader) => {
    const report = await reader.verify(opts.threads === undefined ? {} : { threads: opts.threads });
    const head = expected && report.ok ? reader.checkHead(expected) : undefined;
    if (opts.json) {
      io.out(JSON.stringify(head ? { ...report, expected_head: head } : report));
    } else {
      io.out(formatVerifyReport(report));
      if (head) io.out(formatHeadCheck(head));
    }
    return report.ok && (head?.ok ?? true) ? EXIT_OK : EXIT_FAILED;
  });
}

function formatHeadCheck(head: HeadCheck): string {
  if (head.ok) return `ok: row ${head.seq} still has the recorded hash`;
  return `${head.reason.toUpperCase()}: ${head.detail}`;
}

/** `caesar audit stats`: size, span and counts by type, tool and outcome. */
export function runAuditStats(
  opts: DbOptions & { json?: boolean },
  io: AuditCliIo = consoleIo,
): Promise<number> {
  return withReader(opts, io, (reader) => {
    const stats = reader.stats();
    if (opts.json) io.out(JSON.stringify(stats));
    else formatStats(stats).forEach((l) => io.out(l));
    return EXIT_OK;
  });
}

/** `caesar audit export --format jsonl`: every matching row, oldest first, one JSON per line. */
export function runAuditExport(opts: ExportOptions, io: AuditCliIo = consoleIo): Promise<number> {
  if ((opts.format ?? 'jsonl') !== 'jsonl') {
    io.err(`caesar audit export: unsupported --format ${opts.format}; use jsonl`);
    return Promise.resolve(EXIT_USAGE);
  }
  return withReader(opts, io, async (reader) => {
    const records = reader.records(toFilter(opts));
    if (opts.out === undefined) {
      for (const r of records) io.out(recordToJsonLine(r));
      return EXIT_OK;
    }
    const file = createWriteStream(opts.out, { flags: 'wx' });
    await once(file, 'open');
    for (const r of records) {
      if (!file.write(`${recordToJsonLine(r)}\n`)) await once(file, 'drain');
    }
    file.end();
    await once(file, 'finish');
    return EXIT_OK;
  });
}

/** `caesar audit backup --to FILE`: online copy, then verifies the copy. */
export function runAuditBackup(
  opts: DbOptions & { to: string },
  io: AuditCliIo = consoleIo,
): Promise<number> {
  return withReader(opts, io, async (reader) => {
    const result = await reader.backup(opts.to);
    io.out(`backup written: ${result.path} (${result.bytes} bytes)`);
    io.out(formatVerifyReport(result.verify));
    return result.verify.ok ? EXIT_OK : EXIT_FAILED;
  });
}

/** `caesar audit restore --from FILE`: checks the copy, refuses while a brain holds the log. */
export async function runAuditRestore(
  opts: DbOptions & { from: string },
  io: AuditCliIo = consoleIo,
): Promise<number> {
  try {
    const to = await resolveAuditDb(opts);
    const result = await restoreAuditLog({
      from: opts.from,
      to,
      logger: createLogger({ level: 'warn' }),
    });
    io.out(`restored ${opts.from} -> ${to}`);
    io.out(formatVerifyReport(result.verify));
    if (result.previousMovedTo) io.out(`previous log moved to ${result.previousMovedTo}`);
    return EXIT_OK;
  } catch (err) {
    return failed(err, io);
  }
}

function positiveInt(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

function eventType(text: string, previous: string[] = []): string[] {
  if (!isAuditEventType(text)) {
    throw new InvalidArgumentError(`expected one of ${AUDIT_EVENT_TYPES.join(', ')}`);
  }
  return [...previous, text];
}

function outcome(text: string): AuditOutcome {
  if (!(AUDIT_OUTCOMES as readonly string[]).includes(text)) {
    throw new InvalidArgumentError(`expected one of ${AUDIT_OUTCOMES.join(', ')}`);
  }
  return text as AuditOutcome;
}

function withFilters(cmd: Command): Command {
  return cmd
    .option('--type <type>', 'event type (repeatable)', eventType)
    .option('--tool <tool>', 'tool id')
    .option('--decision <id>', 'decision id')
    .option('--session <id>', 'session id')
    .option('--outcome <outcome>', AUDIT_OUTCOMES.join(' | '), outcome)
    .option('--actor <actor>', 'who asked (token name, cli, trigger)')
    .option('--since <time>', 'ISO-8601 time or duration ago (15m, 2h, 7d)', (t) => parseTime(t))
    .option('--until <time>', 'ISO-8601 time or duration ago', (t) => parseTime(t));
}

export function register(program: Command): void {
  const usageExit = (err: CommanderError): never =>
    process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
  const done = (code: number) => {
    process.exitCode = code;
  };
  const group = program
    .command('audit')
    .description('read, verify, export, back up and restore the audit log')
    .exitOverride(usageExit);
  const sub = (name: string, description: string) =>
    group
      .command(name)
      .description(description)
      .option('--db <file>', "audit database (default: audit.file, else the running stack's)")
      .option('--data-dir <dir>', 'data directory of the running stack (default ./var)')
      .option('--config <file>', 'caesar.yaml to read (default: $CAESAR_CONFIG, ./caesar.yaml)')
      .exitOverride(usageExit);

  withFilters(sub('tail', 'print the newest rows; -f keeps printing new ones'))
    .option('-n, --lines <n>', 'rows to print first', positiveInt, 20)
    .option('-f, --follow', 'keep printing rows as they are appended (Ctrl-C ends)')
    .option('--json', 'one JSON object per line')
    .action(async (opts: TailOptions) => {
      const ac = new AbortController();
      const stop = () => ac.abort();
      process.once('SIGINT', stop).once('SIGTERM', stop);
      try {
        done(await runAuditTail(opts, { ...consoleIo, signal: ac.signal }));
      } finally {
        process.off('SIGINT', stop).off('SIGTERM', stop);
      }
    });

  withFilters(sub('query', 'rows matching filters, newest first'))
    .option('--after-seq <seq>', 'only rows after this seq, oldest first', positiveInt)
    .option('--oldest', 'oldest first')
    .option('--limit <n>', 'at most this many rows (max 10000)', positiveInt, 100)
    .option('--json', 'one JSON object per line')
    .action(async (opts: QueryOptions) => done(await runAuditQuery(opts)));

  sub('verify', 'walk the hash chain; exit 1 and the first bad seq when tampered')
    .option('--json', 'print the report as JSON')
    .option('--threads <n>', 'worker threads (default: up to 4 for large logs)', positiveInt)
    .option(
      '--expect-head <seq:hash>',
      'a head recorded earlier (verify prints it): fail if that row is gone or changed',
    )
    .action(async (opts: DbOptions & { json?: boolean; threads?: number; expectHead?: string }) =>
      done(await runAuditVerify(opts)),
    );

  sub('stats', 'size, span and counts by type, tool and outcome')
    .option('--json', 'print JSON')
    .action(async (opts: DbOptions & { json?: boolean }) => done(await runAuditStats(opts)));

  withFilters(sub('export', 'every matching row, oldest first, as JSON lines'))
    .option('--format <format>', 'output format (jsonl)', 'jsonl')
    .option('--out <file>', 'write to a new file instead of stdout')
    .action(async (opts: ExportOptions) => done(await runAuditExport(opts)));

  sub('backup', 'online backup to a new file (SQLite backup API), then verify the copy')
    .requiredOption('--to <file>', 'destination; must not exist')
    .action(async (opts: DbOptions & { to: string }) => done(await runAuditBackup(opts)));

  sub('restore', 'replace the log with a verified backup (the brain must be stopped)')
    .requiredOption('--from <file>', 'backup to restore')
    .action(async (opts: DbOptions & { from: string }) => done(await runAuditRestore(opts)));
}
