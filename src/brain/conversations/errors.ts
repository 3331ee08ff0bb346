import { CaesarError, errorMessage } from '../../errors/index.js';

/**
 * Errors of the conversation store. Every failure is a `ConversationError` (a `CaesarError`)
 * with a code from the one catalogue, the underlying `cause`, and `retryable` set where the
 * failure happens. `SessionNotFoundError` is the only one a client causes (404); the store's
 * own failures answer a chat with 503 and the catalogue's summary.
 */
import { sqliteCodeOf } from '../../files/index.js';

type ConversationErrorCode =
  | 'session_not_found'
  | 'conversations_open_failed'
  | 'conversations_schema_unsupported'
  | 'conversations_failed'
  | 'conversations_closed';

/** Base class of every error the conversation store throws. */
class ConversationError extends CaesarError {
  declare readonly code: ConversationErrorCode;
  override readonly name: string = 'ConversationError';

  constructor(
    code: ConversationErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(code, message, options);
  }
}

/**
 * The session does not exist, or belongs to another actor. Both read the same, so a caller
 * cannot tell someone else's session id from an unknown one.
 */
export class SessionNotFoundError extends ConversationError {
  override readonly name = 'SessionNotFoundError';
  readonly sessionId: string;

  constructor(sessionId: string) {
    super(
      'session_not_found',
      errorMessage('session_not_found', { id: JSON.stringify(sessionId) }),
    );
    this.sessionId = sessionId;
  }
}

/**
 * The database failed: it could not be opened, has a schema this build does not use, a
 * statement failed, or the store is closed. Names the file; `sqliteCode` when SQLite said.
 */
export class ConversationStoreError extends ConversationError {
  override readonly name = 'ConversationStoreError';
  readonly path: string;
  readonly sqliteCode: string | undefined;

  constructor(
    code: Exclude<ConversationErrorCode, 'session_not_found'>,
    path: string,
    message: string,
    cause?: unknown,
  ) {
    const sqliteCode = sqliteCodeOf(cause);
    super(code, message, { cause, retryable: sqliteCode?.startsWith('SQLITE_BUSY') === true });
    this.path = path;
    this.sqliteCode = sqliteCode;
  }
}

/** Wraps anything a statement threw; errors of this module pass through unchanged. */
export function wrapStoreError(err: unknown, path: string, what: string): ConversationError {
  if (err instanceof ConversationError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new ConversationStoreError(
    'conversations_failed',
    path,
    `conversation store ${path}: ${what} failed: ${detail}`,
    err,
  );
}
