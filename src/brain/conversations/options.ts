import { silentLogger, type Logger } from '../../log/index.js';

/** Options of `openConversationStore`: loose input -> defaults -> frozen settings. */
export interface ConversationStoreOptions {
  /** The SQLite file (`brain.conversations_file`); created, with its directory, if missing. */
  file: string;
  /** Turns kept per session; older ones are deleted on append (`brain.history_limit`). */
  historyLimit: number;
  /** Most sessions kept; creating one more evicts the least recently updated. @default 10000 */
  maxSessions?: number;
  /** A session not updated for this long is dropped by `prune()`. @default 2592000000 (30 days) */
  idleTtlMs?: number;
  /** @default silentLogger() */
  logger?: Logger;
  /** Source of turn timestamps and of "now" for the caps. For tests. @default () => new Date() */
  clock?: () => Date;
}

export interface ConversationStoreSettings {
  readonly file: string;
  readonly historyLimit: number;
  readonly maxSessions: number;
  readonly idleTtlMs: number;
  readonly logger: Logger;
  readonly clock: () => Date;
}

const DEFAULT_MAX_SESSIONS = 10_000;
export const DEFAULT_IDLE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(
      `conversation store option ${name} must be a positive integer, got ${value}`,
    );
  }
  return value;
}

/** Applies defaults and checks ranges; the result is frozen. */
export function normaliseStoreOptions(
  options: ConversationStoreOptions,
): ConversationStoreSettings {
  if (typeof options.file !== 'string' || options.file.length === 0) {
    throw new RangeError('conversation store option file must be a non-empty path');
  }
  return Object.freeze({
    file: options.file,
    historyLimit: positiveInt('historyLimit', options.historyLimit),
    maxSessions: positiveInt('maxSessions', options.maxSessions ?? DEFAULT_MAX_SESSIONS),
    idleTtlMs: positiveInt('idleTtlMs', options.idleTtlMs ?? DEFAULT_IDLE_TTL_MS),
    logger: options.logger ?? silentLogger(),
    clock: options.clock ?? (() => new Date()),
  });
}
