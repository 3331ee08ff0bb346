import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { CONFIG_FILE_ENV, envLayer } from './env.js';
import { objectLayer, type ConfigLayer } from './layer.js';
import { normaliseConfig, resolveConfig } from './normalise.js';
import type { RunningStack } from './runtime-file.js';
import { readRuntimeLayer } from './runtime-layer.js';
import type { RawConfig } from './schema.js';
import { hostTimeZone } from '../clock/index.js';
import { deepFreeze } from '../text/index.js';
import { collectSettings } from './settings.js';
import type { CaesarConfig, ConfigSetting } from './types.js';
import { validateLayers } from './validate.js';
import { yamlFileLayer } from './yaml-layer.js';

/** Every key optional, all the way down (lists are replaced whole, not merged). */
type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** The file looked for in the working directory when none is named. */
const DEFAULT_CONFIG_FILE = 'caesar.yaml';

export interface LoadConfigOptions {
  /** An explicit config file (`--config`); relative to `cwd`. A missing file is an error. */
  file?: string;
  /**
   * Environment to read `CAESAR_CONFIG` and `CAESAR_*` settings from. The loader is the
   * only place CAESAR reads env vars.
   * @default process.env
   */
  env?: Record<string, string | undefined>;
  /**
   * Where `./caesar.yaml` is looked for and relative paths are resolved.
   * @default process.cwd()
   */
  cwd?: string;
  /** Settings from CLI flags, snake_case like `caesar.yaml`; they beat everything else. */
  overrides?: DeepPartial<RawConfig>;
  /**
   * How errors and `loadConfigWithSources()` name the source of `overrides` (`flag`).
   * @default 'overrides'
   */
  overridesSource?: string;
  /**
   * Also read `<data_dir>/runtime.json` (ADR 0035) as a layer between caesar.yaml and the
   * defaults (ADR 0039): the running stack's NATS URL and operator seed, audit log and
   * policy file. For CLI commands that look for a running stack; servers leave it off.
   * @default false
   */
  runningStack?: boolean;
}

/** What {@link loadConfigWithSources} returns. */
interface LoadedConfig {
  /** The same deep-frozen config {@link loadConfig} returns. */
  readonly config: CaesarConfig;
  /**
   * Every effective setting by dotted snake_case path (`bus.url`, `tools.web_search.api_key`),
   * in schema order, with its value and source. Values are not redacted: print them through
   * `redactSettings()`.
   */
  readonly settings: ReadonlyMap<string, ConfigSetting>;
  /** What `<data_dir>/runtime.json` said, when `runningStack` was asked for. */
  readonly runningStack?: RunningStack;
}

/**
 * Loads the configuration: defaults < (runtime.json, when `opts.runningStack`) <
 * `caesar.yaml` < `CAESAR_*` env < `overrides`. The file is `opts.file`, else `$CAESAR_CONFIG`, else `<cwd>/caesar.yaml` if it exists,
 * else none. Returns the normalised config, deep-frozen.
 * @throws {ConfigError} listing every problem, each with its file:line:col or env var.
 */
export async function loadConfig(opts: LoadConfigOptions = {}): Promise<CaesarConfig> {
  return (await load(opts)).config;
}

/**
 * {@link loadConfig}, and for each effective value where it came from: `default`,
 * `<file>:<line>:<col>`, `env CAESAR_X__Y` (`env CAESAR_X__Y_FILE -> /path` for a secret
 * read from a file), `opts.overridesSource` or the runtime.json path. For `caesar config
 * show`, and for commands that need to know whether a running stack was found.
 * @throws {ConfigError} as {@link loadConfig}.
 * @throws {RuntimeFileError} when `opts.runningStack` and runtime.json is malformed.
 */
export async function loadConfigWithSources(opts: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const { config, layers, parsed, ctx, running } = await load(opts);
  // shown resolved, as every computed default is; only here, since asking ICU for the
  // machine's zone costs a process about 7 MB (ADR 0048)
  const resolved = resolveConfig(parsed, { ...ctx, timeZone: hostTimeZone() });
  return Object.freeze({
    config,
    settings: deepFreezeMap(collectSettings(resolved, layers)),
    ...(running ? { runningStack: deepFreeze(running.stack) } : {}),
  });
}

/**
 * {@link loadConfig} with runtime.json as a layer (`runningStack`, ADR 0039), and what that
 * file said: for the commands that look for a running stack and need no sources (`chat`,
 * `invoke`, `audit …`, `legion list`). Unlike {@link loadConfigWithSources} it does not ask
 * ICU for the machine's time zone, about 30 ms of such a command's start (ADR 0047).
 * @throws {ConfigError} as {@link loadConfig}.
 * @throws {RuntimeFileError} when runtime.json is malformed.
 */
export async function loadConfigAndStack(
  opts: Omit<LoadConfigOptions, 'runningStack'> = {},
): Promise<{ readonly config: CaesarConfig; readonly runningStack: RunningStack }> {
  const { config, running } = await load({ ...opts, runningStack: true });
  return Object.freeze({ config, runningStack: deepFreeze(running!.stack) });
}

/** The layers, validated and normalised. */
async function load(opts: LoadConfigOptions) {
  const env = opts.env ?? process.env;
  const cwd = resolve(opts.cwd ?? process.cwd());
  const file = await findConfigFile(opts.file, env, cwd);
  const layers: ConfigLayer[] = [
    file === undefined ? objectLayer('defaults', {}) : await yamlFileLayer(file.path, file.origin),
    await envLayer(env, cwd),
    objectLayer(opts.overridesSource ?? 'overrides', opts.overrides),
  ];
  const running = opts.runningStack ? await readRuntimeLayer(layers, cwd) : undefined;
  if (running) layers.unshift(running.layer);
  const parsed = validateLayers(layers);
  const ctx = { cwd, configFile: file?.path, hostname: hostname() };
  const config = deepFreeze(normaliseConfig(parsed, ctx));
  return { config, layers, parsed, ctx, running };
}

function deepFreezeMap<K, V>(map: Map<K, V>): ReadonlyMap<K, V> {
  for (const v of map.values()) deepFreeze(v);
  return map;
}

interface ConfigFileChoice {
  path: string;
  /** Who named the file, when not the file itself should carry a read error. */
  origin?: string;
}

async function findConfigFile(
  file: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<ConfigFileChoice | undefined> {
  if (file !== undefined) return { path: resolve(cwd, file) };
  const fromEnv = env[CONFIG_FILE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    return { path: resolve(cwd, fromEnv), origin: CONFIG_FILE_ENV };
  }
  const fallback = resolve(cwd, DEFAULT_CONFIG_FILE);
  const found = await stat(fallback).then(
    (s) => s.isFile(),
    () => false,
  );
  return found ? { path: fallback } : undefined;
}
