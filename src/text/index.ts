// Public surface of the text rules: how every module reads, bounds and words text and data
// (YAML, JSON, names, secrets), one module per rule. Pure: node: built-ins and the parsing
// libraries only, no other src/ module.
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
export { findTooDeep, jsonTextTooDeepAt, MAX_NESTING_DEPTH, MAX_YAML_ALIASES } from './bounds.js';
export { isSecretKey, redactText, REDACTED } from './redact-text.js';
export { findPrototypeKey } from './prototype-keys.js';
export type { PrototypeKey } from './prototype-keys.js';
export { yamlLinePos, yamlTextTooDeep, yamlToJs } from './yaml-bounds.js';
export type { YamlBoundIssue, YamlToJsOptions } from './yaml-bounds.js';
