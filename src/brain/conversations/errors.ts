import {
  errorClass,
  errorFamily,
  type CodedError,
  type MessageParams,
} from '../../errors/index.js';

/**
 * Errors of the conversation store, generated from the one catalogue (ADR 0087). Every
 * failure is a `ConversationError` (a `CaesarError`) with a code from the catalogue, the
 * underlying `cause`, and `retryable` set where the failure happens. `SessionNotFoundError` is
 * the only one a client causes (404); the store's own failures answer a chat with 503 and the
 * catalogue's summary.
 */
import { sqliteCodeOf } from '../../files/index.js';

type StoreErrorCode =
  | 'conversations_open_failed'
  | 'conversations_schema_unsupported'
  | 'conversations_failed'
  | 'conversations_closed';

/** Any error the conversation store throws: `err instanceof ConversationError` tests the code. */
const ConversationError = errorFamily<StoreErrorCode | 'session_not_found'>('ConversationError', [
  'session_not_found',
  'conversations_open_failed',
  'conversations_schema_unsupported',
  'conversations_failed',
  'conversations_closed',
]);
type ConversationError = CodedError<StoreErrorCode | 'session_not_found'>;

/**
 * The session does not exist, or belongs to another actor. Both read the same, so a caller
 * cannot tell someone else's session id from an unknown one.
 */
export const SessionNotFoundError = errorClass('session_not_found', (sessionId: string) => ({
  params: { id: JSON.stringify(sessionId) },
  fields: { sessionId },
}));
export type SessionNotFoundError = InstanceType<typeof SessionNotFoundError>;

/** The arguments of one code: the code, the file, the template's other values, the cause. */
type StoreErrorArgs = {
  [K in StoreErrorCode]: [
    code: K,
    path: string,
    params: Omit<MessageParams<K>, 'path'>,
    cause?: unknown,
  ];
}[StoreErrorCode];

/**
 * The database failed: it could not be opened, has a schema this build does not use, a
 * statement failed, or the store is closed. Names the file; `sqliteCode` when SQLite said.
 */
export const ConversationStoreError = errorClass<
  StoreErrorCode,
  StoreErrorArgs,
  { readonly path: string; readonly sqliteCode: string | undefined }
>(
  [
    'conversations_open_failed',
    'conversations_schema_unsupported',
    'conversations_failed',
    'conversations_closed',
  ],
  (...[code, path, params, cause]: StoreErrorArgs) => {
    const sqliteCode = sqliteCodeOf(cause);
    return {
      code,
      params: { ...params, path },
      fields: { path, sqliteCode },
      options: { cause, retryable: sqliteCode?.startsWith('SQLITE_BUSY') === true },
    } as never; // the code and its values are paired by StoreErrorArgs
  },
);
export type ConversationStoreError = InstanceType<typeof ConversationStoreError>;

/** Wraps anything a statement threw; errors of this module pass through unchanged. */
export function wrapStoreError(err: unknown, path: string, what: string): ConversationError {
  if (err instanceof ConversationError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new ConversationStoreError(
    'conversations_failed',
    path,
    { what, outcome: 'failed', reason },
    err,
  );
}
