import { ConfigError, type ConfigIssue } from './errors.js';
import { getIn, mergeLayers, withoutUnset, type ConfigLayer } from './layer.js';
import { ConfigSchema, type ParsedConfig } from './schema.js';
import { toConfigIssues } from './zod-issues.js';

/**
 * Checks each layer on its own (so every bad value is reported against the source that
 * set it, even when a later layer overrides it), then the merged result (for rules that
 * span keys, such as one auth method). Throws one {@link ConfigError} with every issue.
 */
export function validateLayers(layers: readonly ConfigLayer[]): ParsedConfig {
  const issues: ConfigIssue[] = [];
  for (const layer of layers) {
    const own = ConfigSchema.safeParse(withoutUnset(layer.value));
    const found = own.success ? [] : toConfigIssues(own.error.issues, layer.sourceOf);
    issues.push(...[...layer.issues, ...found].sort(bySource));
  }
  const merged = ConfigSchema.safeParse(mergeLayers(layers.map((l) => l.value)));
  if (!merged.success) {
    const sourceOf = (path: readonly PropertyKey[], isKey: boolean) =>
      ownerOf(layers, path)?.sourceOf(path, isKey) ?? 'defaults';
    issues.push(...toConfigIssues(merged.error.issues, sourceOf));
  }
  if (issues.length > 0 || !merged.success) throw new ConfigError(dedupe(issues));
  return merged.data;
}

/** The highest-precedence layer that sets `path`. */
function ownerOf(
  layers: readonly ConfigLayer[],
  path: readonly PropertyKey[],
): ConfigLayer | undefined {
  return layers.findLast((l) => getIn(l.value, path) !== undefined);
}

/** `file:2:10` before `file:10:1`; env vars by name. */
function bySource(a: ConfigIssue, b: ConfigIssue): number {
  return a.source.localeCompare(b.source, 'en', { numeric: true });
}

function dedupe(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.source}\0${i.path}\0${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
