import { loadConfig, type CaesarConfig } from '../config/index.js';
import { overridesFrom, type ConnectionFlags } from './connection.js';

/**
 * Loads the config the way every command does: defaults < caesar.yaml < CAESAR_* env <
 * flags. `raw` adds command-specific overrides in caesar.yaml's snake_case shape.
 */
export async function loadCliConfig(
  flags: ConnectionFlags & { raw?: Record<string, unknown> },
): Promise<CaesarConfig> {
  const overrides = mergeDeep(overridesFrom(flags), flags.raw ?? {});
  return loadConfig({ file: flags.config, overrides });
}

function mergeDeep(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isPlainObject(prev) && isPlainObject(v) ? mergeDeep(prev, v) : v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
