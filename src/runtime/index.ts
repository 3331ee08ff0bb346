// Public surface of the runtime helpers: pure, shared by modules that must not depend on
// each other (protocol, bus, legion, audit, policy, config, brain). node: built-ins and `yaml`
// only.
export { assertScriptExists, compiledScriptUrl } from './script-url.js';
export { formatPath } from './format-path.js';
export { yamlNodeOffset } from './yaml-offset.js';
export { canonicalJson } from './canonical-json.js';
export type { JsonValue } from './canonical-json.js';
export {
  envVarName,
  settingName,
  toolSectionPath,
  TOP_LEVEL_TOOL_SECTIONS,
} from './setting-names.js';
export { closest, editDistance } from './suggest.js';
export { signalGroup, spawnGuarded } from './guarded-spawn.js';
export { findTooDeep, jsonTextTooDeepAt, MAX_NESTING_DEPTH, MAX_YAML_ALIASES } from './bounds.js';
export { isSecretKey, redactText, REDACTED } from './redact-text.js';
export { unwritableReason } from './writable.js';
export { findPrototypeKey } from './prototype-keys.js';
export type { PrototypeKey } from './prototype-keys.js';
export { yamlLinePos, yamlTextTooDeep, yamlToJs } from './yaml-bounds.js';
export type { YamlBoundIssue, YamlToJsOptions } from './yaml-bounds.js';
