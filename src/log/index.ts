import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino censors in every log line. Secrets are redacted by configuration, not by
 * hoping nobody logs them: credentials, tokens and seeds under these keys never print.
 */
export const REDACT_PATHS: readonly string[] = [
  '*.password',
  '*.token',
  '*.secret',
  '*.api_key',
  '*.apiKey',
  // the shipped tools' own credential keys (pino paths match whole keys, not endings)
  '*.brave_api_key',
  '*.tavily_api_key',
  '*.access_token',
  '*.authorization',
  '*.Authorization',
  '*.seed',
  '*.nkeySeed',
  'headers.authorization',
  'req.headers.authorization',
];

export interface CreateLoggerOptions {
  /** @default 'info' (the config loader reads CAESAR_LOG__LEVEL) */
  level?: string;
  /** Base bindings on every line, for example `{ component: 'worker' }`. */
  bindings?: Record<string, unknown>;
  /** Destination stream; stderr by default so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
}

/** Creates the process logger: JSON lines, redacted, on stderr unless told otherwise. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    base: options.bindings ?? {},
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
  };
  return pino(opts, (options.destination ?? process.stderr) as pino.DestinationStream);
}

/** A logger that drops everything: for tests and library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
