import { resolve } from 'node:path';
import { readTokensFile, TokensFileError, type ApiToken } from '../../brain/api/index.js';
import type { CaesarConfig, RuntimeInfo } from '../../config/index.js';
import { createApiClient, type ApiClient } from './client.js';
import type { ApiFlags } from '../program/flags.js';
import { loadCliConfig, loadClientConfig } from '../program/load-config.js';
import { errorClass } from '../../errors/index.js';

/**
 * Where `chat`, `invoke`, `confirm` and `reject` talk to, and as whom: the API URL, the
 * tokens file and the token, each from its flag, else the running stack's runtime.json,
 * else the config (ADR 0035).
 */

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

type ApiTargetErrorCode =
  'stack_not_found' | 'token_not_found' | 'api_url_unknown' | 'api_url_invalid';

/**
 * The API URL or the token could not be worked out: no running stack and no usable default
 * (`stack_not_found`), no such token, no usable URL. The message names the file at fault.
 */
export const ApiTargetError = errorClass<ApiTargetErrorCode>([
  'stack_not_found',
  'token_not_found',
  'api_url_unknown',
  'api_url_invalid',
]);
export type ApiTargetError = InstanceType<typeof ApiTargetError>;

/**
 * Resolves the API URL, the token file and the token name, each on its own: the flag, else
 * the live runtime.json in the data dir (`--data-dir`, `data_dir`, `./var`), else the
 * config (`api.host`/`api.port`, `api.tokens_file`). The token name defaults to
 * runtime.json's when the token file is runtime.json's too, else `operator`, else the only one.
 * @throws {ApiTargetError} {@link RuntimeFileError} {@link ConfigError}
 */
export async function resolveApiTarget(flags: ApiFlags): Promise<ApiTarget> {
  const { config, runtime, hint } = await loadForApi(flags);
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
    throw new ApiTargetError('stack_not_found', { why: hint, tokens: err.message }, { cause: err });
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
      ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
    });
  } catch (err) {
    const why = (err as Error).message;
    throw new ApiTargetError('api_url_invalid', { url: target.url, reason: why }, { cause: err });
  }
  return { client, target };
}

/** The config, and the running stack unless every flag that runtime.json could supply is given. */
async function loadForApi(
  flags: ApiFlags,
): Promise<{ config: CaesarConfig; runtime?: RuntimeInfo; hint?: string }> {
  const given = { config: flags.config, dataDir: flags.dataDir };
  if (flags.apiUrl && flags.tokenFile && flags.tokenName) {
    return { config: await loadCliConfig(given) };
  }
  const { config, stack } = await loadClientConfig(given);
  return stack.info ? { config, runtime: stack.info } : { config, hint: stack.missing };
}

/** The URL the config says the brain listens on, as a client on this host reaches it. */
function configuredApiUrl(config: CaesarConfig, hint: string | undefined): string {
  const { host, port } = config.api;
  if (port === 0) {
    throw new ApiTargetError('api_url_unknown', { hint: hint ?? '' });
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
    throw new ApiTargetError('token_not_found', {
      name: 'operator',
      file,
      names: tokens.length === 0 ? 'it holds none' : names,
      next: tokens.length === 0 ? '' : '; pick one with --token-name',
    });
  }
  const hit = tokens.find((t) => t.name === wanted);
  if (hit === undefined) {
    throw new ApiTargetError('token_not_found', { name: `'${wanted}'`, file, names, next: '' });
  }
  return hit;
}
