import { ConfigError, type ConfigIssue } from './errors.js';
import { isPlainObject } from '../text/index.js';
import { getIn, mergeLayers, withoutUnset, type ConfigLayer } from './layer.js';
import { BUS_AUTH_KEYS, ConfigSchema, type ParsedConfig } from './schema.js';
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
    const found = own.success ? [] : toConfigIssues(own.error, layer.sourceOf);
    issues.push(...[...layer.issues, ...found].sort(bySource));
  }
  const merged = ConfigSchema.safeParse(mergeLayers(authFromOneLayer(layers)));
  if (!merged.success) {
    const sourceOf = (path: readonly PropertyKey[], isKey: boolean) =>
      ownerOf(layers, path)?.sourceOf(path, isKey) ?? 'defaults';
    issues.push(...toConfigIssues(merged.error, sourceOf));
  }
  if (issues.length > 0 || !merged.success) throw new ConfigError(dedupe(issues));
  return merged.data;
}

/**
 * The auth method is one choice: the highest-precedence layer that names any of
 * `bus.nkey_seed_file`, `bus.creds_file`, `bus.token` decides it, and lower layers' auth
 * keys are dropped (a `--creds-file` flag replaces an NKEY seed named in caesar.yaml).
 * Two auth keys in one layer are still an error.
 */
function authFromOneLayer(layers: readonly ConfigLayer[]): Readonly<Record<string, unknown>>[] {
  const setsAuth = (l: ConfigLayer) =>
    BUS_AUTH_KEYS.some((k) => getIn(l.value, ['bus', k]) !== undefined);
  const top = layers.findLastIndex(setsAuth);
  return layers.map((l, i) => {
    const bus = l.value.bus;
    if (i >= top || !isPlainObject(bus)) return l.value;
    const rest = Object.fromEntries(
      Object.entries(bus).filter(([k]) => !(BUS_AUTH_KEYS as readonly string[]).includes(k)),
    );
    return { ...l.value, bus: rest };
  });
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
