import { deepFreeze } from './freeze.js';
import type { CaesarConfig } from './types.js';
import { redactUserinfo } from './urls.js';

export const REDACTED = '[redacted]';

/**
 * Keys whose values are credentials, in any section (tool sections included): `token`,
 * `access_token`, `password`, `client_secret`, `api_key`, `apiKey`, `authorization`, ...
 * Paths to secret files (`creds_file`, `nkey_seed_file`) are not secrets themselves.
 */
const SECRET_KEY =
  /(token|secret|password|passwd|passphrase|api_?key|authorization|credentials?|private_?key|seed)$/i;

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
