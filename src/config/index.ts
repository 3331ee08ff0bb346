export { loadConfig, loadConfigWithSources, DEFAULT_CONFIG_FILE } from './load.js';
export type { LoadConfigOptions, LoadedConfig, DeepPartial } from './load.js';
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
export type { CaesarConfig, BusAuth, BusConfig, ConfigBusOptions, ConfigSetting } from './types.js';
export type { FieldKind } from './fields.js';
export { CONFIG_FILE_ENV, envTarget } from './env.js';
export type { EnvTarget } from './env.js';
export { MAX_SECRET_FILE_BYTES } from './secret-file.js';
export { parseSettingDuration } from './fields.js';
export { formatDuration, MAX_DURATION_MS, REDACTED } from '../text/index.js';
export { redactConfig, redactSettings } from './redact.js';
export { renderConfigReference, REGENERATE_COMMAND } from './reference.js';
export { renderExampleConfig } from './example.js';
export { toolConfigSections } from './tool-sections.js';
export {
  RUNTIME_FILE_NAME,
  RuntimeFileError,
  RuntimeInfoSchema,
  lookupRunningStack,
  readRuntimeFile,
  removeRuntimeFile,
  runtimeFilePath,
  writeRuntimeFile,
} from './runtime-file.js';
export type {
  ReadRuntimeFileOptions,
  RunningStack,
  RuntimeInfo,
  RuntimeInfoInput,
} from './runtime-file.js';
