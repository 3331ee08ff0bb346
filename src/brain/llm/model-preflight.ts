import type { LlmConfig, LlmEndpointConfig } from '../../config/types.js';
import { closest, envVarName, isRecord, readJsonText, terminalLine } from '../../text/index.js';
import { originOf } from './errors.js';
import { ollamaV1 } from './openai.js';

/**
 * The model endpoint's preflight, run when the brain starts (ADR 0075): does the server
 * answer, does it take the key, and does it list the configured model? One GET of the
 * provider's model list (`/v1/models` for OpenAI-compatible servers and Ollama's `/v1`,
 * Anthropic's `/v1/models`), bounded in time and size; it never throws, and no key or
 * server text that could hold one reaches its answer.
 */

/** How long the whole check may take (connect, answer, body). */
export const MODEL_PREFLIGHT_TIMEOUT_MS = 3000;
/** The largest model list read (OpenRouter's lists a few hundred models with descriptions). */
const MAX_LIST_BYTES = 4 * 1024 * 1024;
/** The longest line a check is told in (a server's model names are its to choose). */
const MAX_LINE = 1000;
/** The longest model name shown as a server lists it. */
const MAX_NAME = 120;
/** Names listed when no listed model is close to the configured one. */
const MAX_LISTED = 5;
/** Anthropic's list is paged (20 by default); its largest page. */
const ANTHROPIC_PAGE = 1000;
const ANTHROPIC_VERSION = '2023-06-01';

/** What the check found about one endpoint. */
export interface ModelCheck {
  readonly provider: LlmEndpointConfig['provider'];
  readonly model: string;
  /** `host:port` of the endpoint: never its path's secrets or credentials. */
  readonly origin: string;
  /**
   * `ok`: the server lists the model; `problem`: it cannot work as configured (unreachable,
   * key refused, model not listed); `unknown`: the server keeps no list to check against.
   */
  readonly state: 'ok' | 'problem' | 'unknown';
  /** One phrase: what was found, and for a problem what to do. */
  readonly detail: string;
}

export interface ModelPreflightOptions {
  /** @default MODEL_PREFLIGHT_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

/**
 * Checks the primary provider and each fallback, at once; an empty list for provider `none`
 * or an endpoint with no model (the planner refuses that config with its own error).
 */
export function preflightModels(
  config: LlmConfig,
  options: ModelPreflightOptions = {},
): Promise<ModelCheck[]> {
  if (config.provider === 'none') return Promise.resolve([]);
  const order = [config.provider, ...config.fallback];
  const endpoints = order.map((p) => config.endpoints[p]).filter((e) => e.model !== undefined);
  return Promise.all(endpoints.map((e) => preflightModel(e, options)));
}

/**
 * Which model answers what the local rules do not: `openai gpt-4o-mini`, with its fallbacks
 * (`ollama llama3.1:8b, then anthropic claude-sonnet-4-5`), or `no model: local rules only`.
 */
export function describeModelChoice(config: LlmConfig): string {
  if (config.provider === 'none') return 'no model: local rules only';
  const order = [config.provider, ...config.fallback].map((p) => {
    const model = config.endpoints[p].model;
    return model === undefined ? `${p} (no model set)` : `${p} ${model}`;
  });
  return `model: ${order.join(', then ')}`;
}

/** `llm openai 'gpt-4o-mini' at api.openai.com: ok: the server lists it (1 of 87)`. */
export function describeModelCheck(c: ModelCheck): string {
  const state = c.state === 'problem' ? 'problem' : c.state === 'unknown' ? 'not checked' : 'ok';
  const line = `llm ${c.provider} '${c.model}' at ${c.origin}: ${state}: ${c.detail}`;
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}

/** One endpoint's check; never rejects. */
export async function preflightModel(
  e: LlmEndpointConfig,
  options: ModelPreflightOptions = {},
): Promise<ModelCheck> {
  const model = e.model ?? '';
  const base = { provider: e.provider, model, origin: originOf(e.baseUrl) };
  const timeoutMs = options.timeoutMs ?? MODEL_PREFLIGHT_TIMEOUT_MS;
  const { url, headers } = request(e);
  let listed: string[] | Finding;
  try {
    listed = await fetchList(url, headers, e, timeoutMs);
  } catch (err) {
    return { ...base, state: 'problem', detail: unreachable(err, timeoutMs) };
  }
  return { ...base, ...(Array.isArray(listed) ? judge(model, listed, e.provider) : listed) };
}

function request(e: LlmEndpointConfig): { url: string; headers: Record<string, string> } {
  const trimmed = e.baseUrl.replace(/\/+$/, '');
  if (e.provider === 'anthropic') {
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (e.apiKey !== undefined) headers['x-api-key'] = e.apiKey;
    return { url: `${trimmed}/v1/models?limit=${ANTHROPIC_PAGE}`, headers };
  }
  const root = e.provider === 'ollama' ? ollamaV1(trimmed) : trimmed;
  const headers: Record<string, string> =
    e.apiKey === undefined ? {} : { authorization: `Bearer ${e.apiKey}` };
  return { url: `${root}/models`, headers };
}

type Finding = Pick<ModelCheck, 'state' | 'detail'>;
const problem = (detail: string): Finding => ({ state: 'problem', detail });

/** The listed model ids, or what keeps the check from having them. */
async function fetchList(
  url: string,
  headers: Record<string, string>,
  e: LlmEndpointConfig,
  timeoutMs: number,
): Promise<string[] | Finding> {
  const signal = AbortSignal.timeout(timeoutMs);
  const res = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal });
  const path = new URL(url).pathname;
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    const key = envVarName(['llm', e.provider, 'api_key']);
    const given = e.apiKey === undefined ? 'none is set' : 'the one set was refused';
    return problem(`${res.status} at ${path}: check the API key ${key} (${given})`);
  }
  if (res.status === 404 || res.status === 405) {
    await res.body?.cancel();
    const detail = `the server keeps no model list (${res.status} at ${path}); the first chat will tell`;
    return { state: 'unknown', detail };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return problem(`the server answered ${res.status} at ${path}`);
  }
  const text = await boundedText(res);
  if (text === undefined)
    return problem(`the model list at ${path} is over ${MAX_LIST_BYTES} bytes`);
  return modelIds(text) ?? problem(`the answer at ${path} is not a model list`);
}

async function boundedText(res: Response): Promise<string | undefined> {
  if (res.body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Uint8Array).byteLength;
    if (size > MAX_LIST_BYTES) {
      await res.body.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Deepest nesting a model list is read to; OpenAI's entries hold no more than a few levels. */
const MAX_LIST_DEPTH = 16;

/** `{data: [{id}]}`: OpenAI's, Anthropic's and Ollama's `/v1` list alike. */
function modelIds(text: string): string[] | undefined {
  // the one ladder for JSON from outside: a model list nests 3 levels deep
  const read = readJsonText(text, MAX_LIST_DEPTH);
  if (!read.ok) return undefined;
  const body = read.value;
  if (!isRecord(body) || !Array.isArray(body.data)) return undefined;
  return body.data.flatMap((m: unknown) => (isRecord(m) && typeof m.id === 'string' ? [m.id] : []));
}

function judge(
  model: string,
  listed: readonly string[],
  provider: LlmEndpointConfig['provider'],
): Finding {
  const n = listed.length;
  // Ollama takes a name without a tag for `:latest`
  const same = (id: string) =>
    id === model || (provider === 'ollama' && !model.includes(':') && id === `${model}:latest`);
  if (listed.some(same)) return { state: 'ok', detail: `the server lists it (1 of ${n})` };
  const among = `model '${model}' not among the ${n} the server lists`;
  if (n === 0) return { state: 'problem', detail: `${among}: pull or load a model first` };
  const near = closest(model, listed) ?? sameFamily(model, listed);
  const names = listed.slice(0, MAX_LISTED).map(shown);
  const detail =
    near !== undefined
      ? `${among}: did you mean '${shown(near)}'?`
      : `${among}: it lists ${names.join(', ')}${n > MAX_LISTED ? ', …' : ''}`;
  return { state: 'problem', detail };
}

/** A name as the server wrote it, on one line and clamped. */
function shown(id: string): string {
  const line = terminalLine(id);
  return line.length > MAX_NAME ? `${line.slice(0, MAX_NAME - 1)}…` : line;
}

/**
 * A listed model of the same family: another tag of it (`llama3.1:latest` for
 * `llama3.1:8b`), or a name it begins (`gpt-4o-mini` for `gpt-4o`).
 */
function sameFamily(model: string, listed: readonly string[]): string | undefined {
  const family = model.split(':')[0] ?? model;
  return (
    listed.find((id) => id.split(':')[0] === family) ??
    listed.find((id) => model.length >= 3 && id.startsWith(model))
  );
}

/** Why the server could not be asked: refused, not found, no answer in time. */
function unreachable(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `endpoint unreachable: no answer within ${timeoutMs / 1000} s`;
  }
  const cause = err instanceof Error && isRecord(err.cause) ? err.cause : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const what = code ?? (err instanceof Error ? err.message : String(err));
  return `endpoint unreachable: ${what}`;
}
