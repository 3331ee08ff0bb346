import { deepFreeze } from './freeze.js';
import type { CaesarConfig, ConfigSetting } from './types.js';
import { redactUserinfo } from './urls.js';

export const REDACTED = '[redacted]';

/**
 * Key names whose values are credentials, in any section (tool sections included), matched
 * at the end of the key and case-insensitively: `token`, `access_token`, `password`,
 * `client_secret`, `brave_api_key`, `apiKey`, ... Paths to secret files (`creds_file`,
 * `nkey_seed_file`) are not secrets themselves.
 */
export const SECRET_KEY_ENDINGS: readonly string[] = Object.freeze([
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'api_key',
  'apikey',
  'authorization',
  'credential',
  'credentials',
  'private_key',
  'privatekey',
  'seed',
]);

const SECRET_KEY = new RegExp(`(${SECRET_KEY_ENDINGS.join('|')})$`, 'i');

/** True when a key's name marks a credential (`token`, `api_key`, `password`, `seed`, ...). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * A deep-frozen copy of the config that is safe to print or log: every value under a
 * secret-looking key becomes `[redacted]`, and `user:pass@` in URLs is hidden.
 */
export function redactConfig(config: CaesarConfig): CaesarConfig {
  return deepFreeze(redactValue(config, undefined) as CaesarConfig);
}

function redactValue(value: unknown, key: string | undefined): unknown {
  if (key !== undefined && SECRET_KEY.test(key) && value !== undefined) return REDACTED;
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
