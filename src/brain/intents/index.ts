/**
 * `src/brain/intents`: local intent rules. Sentence templates with slots (config/intents.yaml)
 * matched offline and deterministically, before any LLM. Pure: no NATS, no SQLite, no HTTP.
 * See docs/intents.md.
 */
export { parseIntents } from './compile.js';
export { loadIntents } from './load.js';
export type { IntentCapability } from './intent-set.js';
