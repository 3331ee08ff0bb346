export { loadConfig, DEFAULT_CONFIG_FILE } from './load.js';
export type { LoadConfigOptions, DeepPartial } from './load.js';
export { ConfigError, formatConfigIssue } from './errors.js';
export type { ConfigIssue } from './errors.js';
export {
  ConfigSchema,
  LOG_LEVELS,
  LLM_PROVIDERS,
  DEFAULT_NATS_URL,
  DEFAULT_TOKENS_FILE_NAME,
  BUS_AUTH_KEYS,
} from './schema.js';
export { SHIPPED_INTENTS_FILE } from './shipped.js';
export type { RawConfig, ParsedConfig, LogLevel, LlmProvider } from './schema.js';
export type { CaesarConfig, BusConfig, ConfigBusOptions } from './types.js';
export { CONFIG_FILE_ENV } from './env.js';
export { parseDuration, MAX_DURATION_MS } from './duration.js';
export { redactConfig, REDACTED } from './redact.js';
export { renderConfigReference, REGENERATE_COMMAND } from './reference.js';
export { renderExampleConfig } from './example.js';
