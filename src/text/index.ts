// Public surface of the text rules: how every module reads, bounds and words text and data
// (YAML, JSON, names, durations, secrets), one module per rule. Pure: node: built-ins and the parsing
// libraries only, no other src/ module.
export { formatFieldPath, formatPath } from './format-path.js';
export { isPlainObject, isRecord } from './records.js';
export { canonicalJson } from './canonical-json.js';
export { deepFreeze } from './deep-freeze.js';
export {
  envVarName,
  keyAndEnv,
  settingName,
  toolSectionPath,
  TOP_LEVEL_TOOL_SECTIONS,
} from './setting-names.js';
export { closest } from './suggest.js';
// the grammar itself (parseDuration, durationHint): `duration.ts`, which imports nothing and
// which light readers such as the CLI's flags import directly (ADR 0047)
export { DURATION_UNITS, formatDuration, MAX_DURATION_MS } from './duration.js';
export { durationSchema } from './duration-schema.js';
export {
  jsonTextTooDeepAt,
  MAX_NESTING_DEPTH,
  MAX_WRAPPED_DEPTH,
  MAX_YAML_BYTES,
} from './bounds.js';
export {
  isSecretKey,
  redactSecretKeys,
  REDACTED,
  SECRET_KEY_FRAGMENTS,
  SECRET_REFERENCE_WORDS,
} from './secret-key.js';
export { redactText } from './redact-text.js';
export { terminalLine } from './terminal-text.js';
export { jsonRefusal, jsonTextOf, readJsonText, readJsonValue } from './json-text.js';
export { parseJsonPointer, resolveJsonPointer } from './json-pointer.js';
export { formatYamlIssue, readYaml, yamlDocumentText, yamlFlowText } from './yaml.js';
export type { YamlDocument, YamlIssue } from './yaml.js';
export { isModulePath } from './module-specifier.js';
export { readingOf } from './look-alike.js';
