// Public surface of the conversation store: server-side chat history in SQLite.
export { ConversationStore, openConversationStore } from './store.js';
export type { ConversationStoreOptions } from './options.js';
export { DEFAULT_IDLE_TTL_MS } from './options.js';
export type { PruneResult, Session, ToolRecord, ToolTurnInput, Turn, TurnRole } from './types.js';
export { MAX_CONTENT_CHARS, MAX_TOOL_RECORD_BYTES, truncationMarker } from './truncate.js';
export { CONVERSATIONS_APPLICATION_ID, CONVERSATIONS_SCHEMA_VERSION } from './schema.js';
export { ConversationError, ConversationStoreError, SessionNotFoundError } from './errors.js';
export type { ConversationErrorCode } from './errors.js';
