/**
 * How a setting is named, in `caesar.yaml` and as an env var: one rule for the config loader
 * (which reads the names) and the worker SDK (whose tools tell an operator which key to set).
 */

/**
 * Tool config sections that sit at the top level of `caesar.yaml` instead of under `tools`:
 * `ha` (Home Assistant), so the reference project's `CAESAR_HA__*` env names keep working.
 */
export const TOP_LEVEL_TOOL_SECTIONS: readonly string[] = Object.freeze(['ha']);

/** `['bus', 'nkey_seed_file']` -> `CAESAR_BUS__NKEY_SEED_FILE`. */
export function envVarName(path: readonly string[]): string {
  return `CAESAR_${path.map((p) => p.toUpperCase()).join('__')}`;
}

/** A setting by its key path, with its env var: `api.max_event_streams (CAESAR_API__MAX_EVENT_STREAMS)`. */
export function keyAndEnv(path: readonly string[]): string {
  return `${path.join('.')} (${envVarName(path)})`;
}

/** The key path of a tool section: `web_search` -> `['tools', 'web_search']`, `ha` -> `['ha']`. */
export function toolSectionPath(section: string): string[] {
  return TOP_LEVEL_TOOL_SECTIONS.includes(section) ? [section] : ['tools', section];
}

/**
 * How an operator sets one key of a tool section, both ways:
 * `CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL (tools.web_search.searxng_url)`.
 */
export function settingName(section: string, key: string): string {
  const path = [...toolSectionPath(section), key];
  return `${envVarName(path)} (${path.join('.')})`;
}
