import { isPlainObject } from '../text/index.js';
import { getIn, UNSET, type ConfigLayer } from './layer.js';
import type { ResolvedConfig } from './normalise.js';
import { isSecretKey } from '../text/index.js';
import type { ConfigSetting } from './types.js';
import { configNodes } from './walk.js';
import { TOOL_LIMITS_KEY } from './schema.js';

/** The source of a value no layer set. */
const DEFAULT_SOURCE = 'default';

/** Tool sections nest at most this deep in the listing; deeper maps are shown as one value. */
const MAX_TOOL_DEPTH = 16;

/**
 * Every effective setting by dotted snake_case path, in schema order, then the `tools`
 * leaves: each schema key (set or not), and each leaf under `tools.<tool>` (lists and empty
 * maps are leaves). The source is the highest layer that set the value, else `default`.
 */
export function collectSettings(
  resolved: ResolvedConfig,
  layers: readonly ConfigLayer[],
): Map<string, ConfigSetting> {
  const out = new Map<string, ConfigSetting>();
  for (const node of configNodes()) {
    if (node.type !== 'field') continue;
    const value = getIn(resolved, node.path);
    out.set(node.path.join('.'), {
      value,
      source: sourceOf(layers, node.path, value !== undefined),
      kind: node.kind,
      secret: node.meta.secret === true || isSecretKey(node.path.at(-1) ?? ''),
    });
  }
  // `tools.limits` is a schema section, listed above with the keys
  const sections = Object.entries(resolved.tools).filter(([k]) => k !== TOOL_LIMITS_KEY);
  if (sections.length === 0) {
    out.set('tools', { value: {}, source: sourceOf(layers, ['tools'], true), secret: false });
  }
  for (const [tool, section] of sections) {
    addLeaves(out, layers, ['tools', tool], section, 0);
  }
  return out;
}

function addLeaves(
  out: Map<string, ConfigSetting>,
  layers: readonly ConfigLayer[],
  path: readonly string[],
  value: unknown,
  depth: number,
): void {
  const entries = isPlainObject(value) ? Object.entries(value) : [];
  if (entries.length === 0 || depth >= MAX_TOOL_DEPTH) {
    const secret = isSecretKey(path.at(-1) ?? '');
    out.set(path.join('.'), { value, source: sourceOf(layers, path, true), secret });
    return;
  }
  for (const [key, v] of entries) {
    if (v !== undefined) addLeaves(out, layers, [...path, key], v, depth + 1);
  }
}

/**
 * The highest layer that set `path`. A default in effect because a layer cleared the key (an
 * empty env var) says so; a value a higher source replaced (one auth method) is `default`.
 */
function sourceOf(layers: readonly ConfigLayer[], path: readonly string[], isSet: boolean): string {
  for (const layer of [...layers].reverse()) {
    const v = getIn(layer.value, path);
    if (v === undefined) continue;
    const origin = layer.originOf?.(path) ?? layer.sourceOf(path, false);
    if (v === UNSET) return `${DEFAULT_SOURCE}, cleared by ${origin}`;
    return isSet ? origin : DEFAULT_SOURCE;
  }
  return DEFAULT_SOURCE;
}
