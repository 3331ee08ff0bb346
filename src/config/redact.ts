import type { ConfigSetting } from './types.js';
import { redactUserinfo } from './urls.js';
import { deepFreeze, isSecretKey, REDACTED } from '../text/index.js';

/**
 * `value` with every value under a secret key (the one rule, `isSecretKey`; paths to secret
 * files still print) as `[redacted]`, at any depth, and `user:pass@` in URLs hidden.
 */
function redactValue(value: unknown, key: string | undefined): unknown {
  if (key !== undefined && isSecretKey(key) && value !== undefined) return REDACTED;
  if (typeof value === 'string') return redactUserinfo(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, undefined));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, k);
  return out;
}

/**
 * A copy of `loadConfigWithSources()` settings that is safe to print: a secret's value
 * becomes `[redacted]` (whatever its source), and `user:pass@` in URLs is hidden.
 */
export function redactSettings(
  settings: ReadonlyMap<string, ConfigSetting>,
): ReadonlyMap<string, ConfigSetting> {
  const out = new Map<string, ConfigSetting>();
  for (const [path, setting] of settings) {
    const value =
      setting.secret && setting.value !== undefined
        ? REDACTED
        : redactValue(setting.value, undefined);
    out.set(path, Object.freeze({ ...setting, value: deepFreeze(value) }));
  }
  return out;
}
