/**
 * `src/brain/intents`: local intent rules. Sentence templates with slots (config/intents.yaml)
 * matched offline and deterministically, before any LLM. Pure: no NATS, no SQLite, no HTTP.
 * See docs/intents.md.
 */
export { parseIntents } from './compile.js';
export { loadIntents } from './load.js';
// the brain's live rules: reloaded when the file is saved, the last good set kept on a bad one
export { IntentStore } from './store.js';
export type { IntentCapability } from './intent-set.js';
// the brain's own answers without a model: greeting, time, date, help (ADR 0074)
export { matchBuiltin, type BuiltinKind } from './builtin.js';
// an entity slot matched against the policy's own list when ha_entities is not granted (ADR 0088)
export { entityFallback, POLICY_LIST_CLAUSE } from './entity.js';
