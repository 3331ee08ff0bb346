import { z } from 'zod';
import { settingName } from '../../legion/index.js';

/** The config section both Home Assistant tools read: top-level `ha` (`CAESAR_HA__*`). */
export const HA_SECTION = 'ha';

/** `CAESAR_HA__URL (ha.url)`: how an operator sets one key, both ways. */
export const haSetting = (key: 'url' | 'token' | 'timeout_seconds' | 'verify_ssl'): string =>
  settingName(HA_SECTION, key);

/** An empty string counts as not set (`CAESAR_HA__TOKEN=` clears the key). */
const optionalText = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string().trim().optional(),
);

const httpUrl = optionalText.refine(
  (v) => {
    if (v === undefined) return true;
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
    } catch {
      return false;
    }
  },
  {
    message: 'expected an http(s) URL such as http://homeassistant.local:8123, without credentials',
  },
);

/**
 * The `ha` section as the tools take it. The config loader has already checked it; the
 * schema is repeated here because `serveTools` may be handed the section directly, and
 * values from the environment may still be strings (`"10"`, `"false"`).
 */
export const HaConfigSchema = z.strictObject({
  url: httpUrl,
  token: optionalText,
  timeout_seconds: z.coerce.number().int().min(1).max(600).default(10),
  verify_ssl: z.union([z.boolean(), z.stringbool()]).default(true),
});
export type HaConfig = z.output<typeof HaConfigSchema>;

/** A configured Home Assistant: where it is and how to reach it. */
export interface HaTarget {
  readonly url: string;
  readonly token: string;
  readonly timeoutMs: number;
  readonly verifyTls: boolean;
}

/** The keys an operator still has to set, named both ways; empty when configured. */
export function missingSettings(config: HaConfig): string[] {
  const missing: string[] = [];
  if (config.url === undefined) missing.push(haSetting('url'));
  if (config.token === undefined) missing.push(haSetting('token'));
  return missing;
}

/** "set CAESAR_HA__URL (ha.url) and CAESAR_HA__TOKEN (ha.token)" */
export function notConfiguredMessage(missing: readonly string[]): string {
  return `Home Assistant is not configured: ${whatToSet(missing)}`;
}

/** `set CAESAR_HA__URL (ha.url) and CAESAR_HA__TOKEN (ha.token)`: the preflight's detail. */
export function whatToSet(missing: readonly string[]): string {
  return `set ${missing.join(' and ')}`;
}

/** The target, or undefined when a key is missing. */
export function haTarget(config: HaConfig): HaTarget | undefined {
  if (config.url === undefined || config.token === undefined) return undefined;
  return {
    url: config.url,
    token: config.token,
    timeoutMs: config.timeout_seconds * 1000,
    verifyTls: config.verify_ssl,
  };
}
