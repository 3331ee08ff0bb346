import { pino, stdSerializers, type Logger, type LoggerOptions } from 'pino';
import { redactSecretKeys, REDACTED } from '../text/index.js';
import { prettyDestination, resolveLogFormat, type LogFormat, type LogRecord } from './pretty.js';

export type { Logger } from 'pino';

/**
 * Secrets are redacted by configuration, not by hoping nobody logs them. Every log line's
 * fields, child bindings and serialized errors pass through {@link redactSecretKeys}: the
 * one secret-key rule of `src/text/secret-key.ts` (the audit log's and `caesar config show`'s
 * too), at any depth up to `SECRET_KEY_SCAN_DEPTH` (8) levels; a deeper subtree prints as a
 * marker. pino's own paths cannot say "any key matching a rule at any depth", so they are kept
 * only for the request headers, as a second guard.
 */
const REDACT_PATHS: readonly string[] = ['headers.authorization', 'req.headers.authorization'];

const redactFields = (fields: Record<string, unknown>): Record<string, unknown> =>
  redactSecretKeys(fields) as Record<string, unknown>;

interface CreateLoggerOptions {
  /** @default 'info' (the config loader reads CAESAR_LOG__LEVEL) */
  level?: string;
  /** Base bindings on every line, for example `{ component: 'worker' }`. */
  bindings?: Record<string, unknown>;
  /** Destination stream; stderr by default so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
  /**
   * `json`: one JSON object a line; `pretty`: one readable line (ADR 0076); `auto` (the
   * default): pretty when the destination is a terminal.
   */
  format?: LogFormat;
  /** In pretty output, records the command prints as its own readable line: left out. */
  hideWhenPretty?: (record: LogRecord) => boolean;
}

/**
 * Creates the process logger: redacted, on stderr unless told otherwise; JSON lines, or
 * readable lines on a terminal. The readable line is made from the JSON line, so it shows
 * only what redaction left.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    base: options.bindings ?? {},
    formatters: { log: redactFields, bindings: redactFields },
    // pino's error serializer builds its object after the log formatter ran.
    serializers: { err: (err: Error) => redactSecretKeys({ ...stdSerializers.err(err) }) },
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
  };
  const out = options.destination ?? process.stderr;
  const destination =
    resolveLogFormat(options.format, out) === 'pretty'
      ? prettyDestination(out, options.hideWhenPretty)
      : out;
  const logger = pino(opts, destination);
  return redactingChildBindings(logger);
}

/**
 * pino applies `formatters.bindings` to the base bindings only, so a child's bindings
 * (`log.child({ auth })`) would skip the rule. A child is `Object.create(parent)`, so this own
 * `child` on the root is what every descendant calls: it redacts the bindings, then hands them
 * to pino's own `child`.
 */
function redactingChildBindings(logger: Logger): Logger {
  type Child = (this: Logger, bindings: Record<string, unknown>, options?: unknown) => Logger;
  const pinoChild = (Object.getPrototypeOf(logger) as { child: Child }).child;
  function child(this: Logger, bindings: Record<string, unknown>, options?: unknown): Logger {
    return pinoChild.call(this, redactFields(bindings), options);
  }
  Object.defineProperty(logger, 'child', { value: child, writable: true, configurable: true });
  return logger;
}

/** A logger that drops everything: for tests and library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
