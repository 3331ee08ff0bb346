import {
  loadConfig,
  loadConfigAndStack,
  type CaesarConfig,
  type RunningStack,
} from '../../config/index.js';
import type { BusFlags } from './flags.js';
import { isRecord } from '../../text/index.js';

/**
 * The shared flags, the servers' `--policy` and `--intents`, and command-specific overrides
 * in caesar.yaml's snake_case shape.
 */
type ConfigFlags = BusFlags & { policy?: string; intents?: string; raw?: Record<string, unknown> };

/**
 * Loads the config the way every command does: defaults < caesar.yaml < CAESAR_* env <
 * flags. For the servers (`brain`, `legion serve-tool`, `up`), which never read runtime.json.
 */
export async function loadCliConfig(flags: ConfigFlags): Promise<CaesarConfig> {
  return loadConfig({ file: flags.config, overrides: overridesOf(flags) });
}

/**
 * The config as a client of a running stack sees it: {@link loadCliConfig} with
 * `<data_dir>/runtime.json` as a layer between caesar.yaml and the defaults (flag > env >
 * caesar.yaml > runtime.json > built-in default, ADR 0039), and what runtime.json said.
 * @throws {ConfigError} {@link RuntimeFileError}
 */
export async function loadClientConfig(
  flags: ConfigFlags,
): Promise<{ config: CaesarConfig; stack: RunningStack }> {
  const loaded = await loadConfigAndStack({ file: flags.config, overrides: overridesOf(flags) });
  return { config: loaded.config, stack: loaded.runningStack };
}

function overridesOf(flags: ConfigFlags): Record<string, unknown> {
  return mergeDeep(overridesFromFlags(flags), flags.raw ?? {});
}

function mergeDeep(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isRecord(prev) && isRecord(v) ? mergeDeep(prev, v) : v;
  }
  return out;
}

/** Config overrides from flags (snake_case, as in caesar.yaml); flags beat env and file. */
function overridesFromFlags(flags: ConfigFlags): Record<string, unknown> {
  const bus: Record<string, unknown> = {};
  if (flags.natsUrl) bus.url = flags.natsUrl;
  if (flags.nkeySeedFile) bus.nkey_seed_file = flags.nkeySeedFile;
  if (flags.credsFile) bus.creds_file = flags.credsFile;
  if (flags.inboxIdentity) bus.inbox_identity = flags.inboxIdentity;
  const out: Record<string, unknown> = {};
  if (Object.keys(bus).length > 0) out.bus = bus;
  if (flags.logLevel) out.log = { level: flags.logLevel };
  if (flags.dataDir) out.data_dir = flags.dataDir;
  if (flags.policy !== undefined) out.policy = { file: flags.policy };
  if (flags.intents !== undefined) out.brain = { intents_file: flags.intents };
  return out;
}
