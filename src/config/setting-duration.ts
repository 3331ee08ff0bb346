import { parseDuration, type DurationOptions } from '../text/duration.js';

/**
 * How settings (caesar.yaml, env vars, CLI flags) read a duration: the one grammar
 * (docs/configuration.md, "Durations"), with a bare number meaning milliseconds, as existing
 * files and the reference CAESAR's env vars write it. Imports only the grammar, so the CLI's
 * flags read durations without loading the config schema (ADR 0047).
 */
export const SETTING_DURATION: DurationOptions = Object.freeze({ bareNumber: 'ms' });

/** A setting's duration in milliseconds (`"5s"` -> 5000, `"250"` -> 250), or undefined. */
export function parseSettingDuration(value: string | number): number | undefined {
  return parseDuration(value, SETTING_DURATION);
}
