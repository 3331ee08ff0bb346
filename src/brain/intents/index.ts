/**
 * `src/brain/intents`: local intent rules. Sentence templates with slots (config/intents.yaml)
 * matched offline and deterministically, before any LLM. Pure: no NATS, no SQLite, no HTTP.
 * See docs/intents.md.
 */
export { parseIntents } from './compile.js';
export { loadIntents } from './load.js';
export type { IntentMatch, IntentSet, IntentSummary, MatchContext } from './intent-set.js';
export { DEFAULT_REPLIES, INTENT_OUTCOMES, MAX_REPLY_CHARS } from './reply.js';
export type { IntentOutcome, IntentOutcomeKind, ReplyKind } from './reply.js';
export type { SlotValue } from './slots.js';
export { ENTITY_LOOKUP_TOOL } from './entity.js';
export type { IntentLookup } from './entity.js';
export { DATE_PHRASES } from './dates.js';
export type { DatePhrase } from './dates.js';
export { MAX_MESSAGE_CHARS } from './matcher.js';
export { IntentsError, formatIntentsIssue } from './errors.js';
export type { IntentsErrorCode, IntentsIssue } from './errors.js';
