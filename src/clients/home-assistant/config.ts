import { z } from 'zod';
import { HA_SECTION, HaSectionSchema, sectionFromEnvStrings } from '../../config/index.js';
import { settingName } from '../../legion/index.js';

export { HA_SECTION };

/** `CAESAR_HA__URL (ha.url)`: how an operator sets one key, both ways. */
export const haSetting = (key: 'url' | 'token' | 'timeout_seconds' | 'verify_ssl'): string =>
  settingName(HA_SECTION, key);

/**
 * The `ha` section as the tools take it: the config file's own schema (one definition,
 * `src/config/ha-section.ts`). The config loader has already checked it; it is read again
 * because `serveTools` may be handed the section directly, its values still the strings of
 * an environment (`"10"`, `"false"`, a blank token): each string is read the way its
 * `CAESAR_HA__*` var is.
 */
export const HaConfigSchema = z.preprocess(
  (value) => sectionFromEnvStrings(HA_SECTION, value),
  HaSectionSchema,
);
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

/**
 * The reason of a `not_configured` error, which the catalogue's template opens with "not
 * configured: ": `set CAESAR_HA__URL (ha.url) and CAESAR_HA__TOKEN (ha.token) for Home Assistant`.
 */
export function notConfiguredReason(missing: readonly string[]): string {
  return `${whatToSet(missing)} for Home Assistant`;
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
