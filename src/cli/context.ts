import { join, resolve } from 'node:path';
import { readTokensFile, TokensFileError, type ApiToken } from '../brain/http/index.js';
import { ConfigSchema, loadConfig, type CaesarConfig } from '../config/index.js';
import { createApiClient, type ApiClient } from './api-client.js';
import {
  DEFAULT_API_TIMEOUT_MS,
  overridesFromFlags,
  type ApiFlags,
  type BusFlags,
} from './flags.js';
import { readRuntimeFile, RUNTIME_FILE_NAME, type RuntimeInfo } from './runtime-file.js';

/**
 * Loads the config the way every command does: defaults < caesar.yaml < CAESAR_* env <
 * flags. `raw` adds command-specific overrides in caesar.yaml's snake_case shape.
 */
export async function loadCliConfig(
  flags: BusFlags & { raw?: Record<string, unknown> },
): Promise<CaesarConfig> {
  const overrides = mergeDeep(overridesFromFlags(flags), flags.raw ?? {});
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

/**
 * The running stack's NATS server and, when `caesar up` minted identities, the operator's
 * seed file; undefined when the config names a server of its own or no stack is running.
 * Same precedence as {@link fromRunningStack}.
 */
export async function runningNats(
  config: CaesarConfig,
): Promise<{ url: string; seedFile?: string } | undefined> {
  if (isConfigured(config, 'nats_url', process.cwd())) return undefined;
  const runtime = await readRuntimeFile(config.dataDir);
  if (!runtime) return undefined;
  if (runtime.nats_seed_file === undefined) return { url: runtime.nats_url };
  return { url: runtime.nats_url, seedFile: runtime.nats_seed_file };
}

/** Settings a command may take from the running stack's runtime.json. */
export type StackSetting = 'nats_url' | 'audit_db' | 'policy_file';

const BUILT_IN = ConfigSchema.parse({});

/**
 * The running stack's value for `setting`, when neither env nor caesar.yaml set it: the
 * precedence is flag > env / config file > runtime.json > built-in default. Callers check
 * their own flag first. A configured value equal to the built-in default counts as unset
 * (the config keeps no record of where a value came from). Reads `<data_dir>/runtime.json`;
 * undefined when it is missing or stale.
 * @throws {RuntimeFileError} when runtime.json is malformed.
 */
export async function fromRunningStack(
  config: CaesarConfig,
  setting: StackSetting,
  cwd: string = process.cwd(),
): Promise<string | undefined> {
  if (isConfigured(config, setting, cwd)) return undefined;
  const runtime = await readRuntimeFile(config.dataDir);
  return runtime?.[setting];
}

function isConfigured(config: CaesarConfig, setting: StackSetting, cwd: string): boolean {
  switch (setting) {
    case 'nats_url':
      return config.bus.servers.join(',') !== BUILT_IN.bus.url.join(',');
    case 'audit_db':
      return config.audit.file !== join(config.dataDir, 'audit.db');
    case 'policy_file':
      return config.policy.file !== resolve(cwd, BUILT_IN.policy.file);
  }
}

/** Where and as whom to talk to the brain's HTTP API. */
export interface ApiTarget {
  url: string;
  /** Secret: goes into the Authorization header only. */
  token: string;
  tokenName: string;
  tokenFile: string;
  /** Why no running stack was found in the data dir, when the URL had to come from the
   * config; for the message when the brain cannot be reached. */
  hint?: string;
}

export type ApiTargetErrorCode =
  'stack_not_found' | 'token_not_found' | 'api_url_unknown' | 'api_url_invalid';

/**
 * The API URL or the token could not be worked out: no running stack and no usable default
 * (`stack_not_found`), no such token, no usable URL. The message names the file at fault.
 */
export class ApiTargetError extends Error {
  override readonly name = 'ApiTargetError';
  readonly code: ApiTargetErrorCode;

  constructor(code: ApiTargetErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * Resolves the API URL, the token file and the token name, each on its own: the flag, else
 * the live runtime.json in the data dir (`--data-dir`, `data_dir`, `./var`), else the
 * config (`api.host`/`api.port`, `api.tokens_file`). The token name defaults to
 * runtime.json's when the token file is runtime.json's too, else `operator`, else the only one.
 * @throws {ApiTargetError} {@link RuntimeFileError} {@link ConfigError}
 */
export async function resolveApiTarget(flags: ApiFlags): Promise<ApiTarget> {
  const config = await loadCliConfig({ config: flags.config, dataDir: flags.dataDir });
  let hint: string | undefined;
  let runtime: RuntimeInfo | undefined;
  if (!flags.apiUrl || !flags.tokenFile || !flags.tokenName) {
    runtime = await readRuntimeFile(config.dataDir, { onStale: (reason) => (hint = reason) });
    if (runtime === undefined) {
      hint ??= `no ${RUNTIME_FILE_NAME} in ${config.dataDir}; is \`caesar up\` running?`;
    }
  }
  const url = flags.apiUrl ?? runtime?.api_url ?? configuredApiUrl(config, hint);
  const tokenFile = flags.tokenFile
    ? resolve(flags.tokenFile)
    : (runtime?.token_file ?? config.api.tokensFile);
  // runtime.json's token name belongs to its token file, not to one given by a flag
  const name = flags.tokenName ?? (flags.tokenFile ? undefined : runtime?.token_name);
  let picked: ApiToken;
  try {
    picked = await readApiToken(tokenFile, name);
  } catch (err) {
    // No stack, and the default tokens file cannot be read either: lead with the stack.
    const missing = err instanceof TokensFileError && err.code === 'tokens_file_unreadable';
    if (!missing || !hint || flags.tokenFile) throw err;
    throw new ApiTargetError('stack_not_found', `${hint} (${err.message})`, { cause: err });
  }
  const target: ApiTarget = { url, token: picked.token, tokenName: picked.name, tokenFile };
  return hint && !flags.apiUrl ? { ...target, hint } : target;
}

/**
 * A client for the brain the flags point at (see {@link resolveApiTarget}), and the target,
 * whose `hint` explains a connection failure.
 * @throws {ApiTargetError} {@link RuntimeFileError} {@link ConfigError}
 */
export async function openApiClient(
  flags: ApiFlags,
): Promise<{ client: ApiClient; target: ApiTarget }> {
  const target = await resolveApiTarget(flags);
  let client: ApiClient;
  try {
    client = createApiClient({
      url: target.url,
      token: target.token,
      timeoutMs: flags.timeout ?? DEFAULT_API_TIMEOUT_MS,
    });
  } catch (err) {
    const why = (err as Error).message;
    throw new ApiTargetError('api_url_invalid', `bad API URL ${target.url}: ${why}`, {
      cause: err,
    });
  }
  return { client, target };
}

/** The URL the config says the brain listens on, as a client on this host reaches it. */
function configuredApiUrl(config: CaesarConfig, hint: string | undefined): string {
  const { host, port } = config.api;
  if (port === 0) {
    throw new ApiTargetError(
      'api_url_unknown',
      `api.port is 0 (any free port), so only runtime.json knows the port: ${hint ?? ''}; or pass --api-url`,
    );
  }
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * The token named `name` in an API tokens file (`tokens: [{name, token}]`, read and checked
 * by the brain's own reader, so both ends accept the same files); without a name, the one
 * named `operator`, else the only one. Messages name the file and token names, never a token.
 * @throws {TokensFileError} unreadable, open to group or others (`chmod 600` hint), invalid.
 * @throws {ApiTargetError} `token_not_found`.
 */
export async function readApiToken(file: string, name?: string): Promise<ApiToken> {
  const tokens = await readTokensFile(file);
  const names = tokens.map((t) => t.name).join(', ');
  const wanted = name ?? (tokens.some((t) => t.name === 'operator') ? 'operator' : undefined);
  if (wanted === undefined && tokens.length === 1) return tokens[0]!;
  if (wanted === undefined) {
    throw new ApiTargetError(
      'token_not_found',
      tokens.length === 0
        ? `${file} holds no tokens`
        : `${file} holds ${tokens.length} tokens and none is named operator; pick one with --token-name (${names})`,
    );
  }
  const hit = tokens.find((t) => t.name === wanted);
  if (hit === undefined) {
    throw new ApiTargetError('token_not_found', `no token named '${wanted}' in ${file} (${names})`);
  }
  return hit;
}
