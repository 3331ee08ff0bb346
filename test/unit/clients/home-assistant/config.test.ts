import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, toolConfigSections } from '../../../../src/config/index.js';
import { HaConfigSchema } from '../../../../src/clients/home-assistant/config.js';
import { tempDir } from '../../config/temp-dir.js';

// Issue 30: the Home Assistant settings are defined once (src/config/ha-section.ts). The
// config loader reads them from `CAESAR_HA__*`; the tools' reader (`HaConfigSchema`) may be
// handed the same strings directly. Both must accept and refuse the same inputs, and give a
// tool the same section.

type Read = { ok: true; section: unknown } | { ok: false };

/** The loader: env vars -> config -> the section a tool is handed -> the tool's reader. */
async function throughLoader(env: Record<string, string>): Promise<Read> {
  await using dir = await tempDir();
  try {
    const config = await loadConfig({ env, cwd: dir.path });
    return { ok: true, section: HaConfigSchema.parse(toolConfigSections(config)['ha']) };
  } catch (err) {
    if (err instanceof ConfigError) return { ok: false };
    throw err;
  }
}

/** The tools' reader, handed the env's strings as a section (`CAESAR_HA__URL` -> `url`). */
function direct(env: Record<string, string>): Read {
  const section = Object.fromEntries(
    Object.entries(env).map(([name, value]) => [
      name.slice('CAESAR_HA__'.length).toLowerCase(),
      value,
    ]),
  );
  const parsed = HaConfigSchema.safeParse(section);
  return parsed.success ? { ok: true, section: parsed.data } : { ok: false };
}

const ACCEPTED: Record<string, string>[] = [
  {},
  { CAESAR_HA__URL: 'http://homeassistant.local:8123', CAESAR_HA__TOKEN: 'ha-token' },
  { CAESAR_HA__URL: 'https://proxy.example/ha/' },
  { CAESAR_HA__TIMEOUT_SECONDS: '5', CAESAR_HA__VERIFY_SSL: 'false' },
  { CAESAR_HA__TIMEOUT_SECONDS: ' 600 ', CAESAR_HA__VERIFY_SSL: 'TRUE' },
  { CAESAR_HA__VERIFY_SSL: '0' },
  { CAESAR_HA__VERIFY_SSL: '1' },
  { CAESAR_HA__TOKEN: '' },
  { CAESAR_HA__URL: '' },
];

const REFUSED: Record<string, string>[] = [
  { CAESAR_HA__URL: 'ftp://ha' },
  { CAESAR_HA__URL: 'http://user:pw@ha' },
  { CAESAR_HA__URL: 'not a url' },
  { CAESAR_HA__TIMEOUT_SECONDS: '0' },
  { CAESAR_HA__TIMEOUT_SECONDS: '601' },
  { CAESAR_HA__TIMEOUT_SECONDS: '2.5' },
  { CAESAR_HA__TIMEOUT_SECONDS: 'ten' },
  { CAESAR_HA__VERIFY_SSL: 'maybe' },
  { CAESAR_HA__VERIFY_SSL: 'yes' },
  { CAESAR_HA__TOKN: 'x' },
];

describe('the Home Assistant settings, read by the loader and by the tools', () => {
  test.each(ACCEPTED)('%j: both accept it, and the tool gets the same section', async (env) => {
    const loaded = await throughLoader(env);
    expect(loaded.ok).toBe(true);
    expect(direct(env)).toEqual(loaded);
  });

  test.each(REFUSED)('%j: both refuse it', async (env) => {
    expect(await throughLoader(env)).toEqual({ ok: false });
    expect(direct(env)).toEqual({ ok: false });
  });

  test('values a YAML file gives typed pass the tools reader unchanged', () => {
    const section = { url: 'http://ha:8123', token: 't', timeout_seconds: 3, verify_ssl: false };
    expect(HaConfigSchema.parse(section)).toEqual(section);
    expect(HaConfigSchema.parse({})).toEqual({ timeout_seconds: 10, verify_ssl: true });
  });
});
