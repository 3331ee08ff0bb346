import { z } from 'zod';
import { settingName, unknownKeysWords } from '../../src/legion/index.js';
import { Secret } from './secret.js';

/**
 * The `web_search` config section (`tools.web_search` in caesar.yaml,
 * `CAESAR_TOOLS__WEB_SEARCH__<KEY>` in the environment) in three steps: a strict loose shape
 * (env values arrive as strings), defaults, then normalised and frozen settings with one entry
 * per usable backend in the order they are tried.
 */

/** The backends, in the default fallback order. */
export const BACKENDS = ['searxng', 'brave', 'tavily'] as const;
export type BackendName = (typeof BACKENDS)[number];

/** Upper bound on one whole call (the tool's `timeoutMs`), so also on `timeout_seconds`. */
export const TOOL_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_SECONDS = TOOL_TIMEOUT_MS / 1000;
const MIN_KEY_LENGTH = 8;

export const DEFAULTS = Object.freeze({
  brave_url: 'https://api.search.brave.com',
  tavily_url: 'https://api.tavily.com',
  result_limit: 5,
  max_result_limit: 25,
  timeout_seconds: 10,
});

/** The key that makes each backend usable. */
const ENABLING_KEY = {
  searxng: 'searxng_url',
  brave: 'brave_api_key',
  tavily: 'tavily_api_key',
} as const satisfies Record<BackendName, string>;

/** One usable backend: where it is and, for the metered ones, the key it sends. */
export type BackendSettings =
  | { readonly name: 'searxng'; readonly url: string }
  | { readonly name: 'brave' | 'tavily'; readonly url: string; readonly apiKey: Secret };

export interface WebSearchSettings {
  /** Usable backends in the order they are tried; empty when none is configured. */
  readonly backends: readonly BackendSettings[];
  /** Results when the call names no `max_results`. */
  readonly resultLimit: number;
  /** Most results a call gets; a larger `max_results` is cut to this. */
  readonly maxResultLimit: number;
  /** Upper bound of one backend request. */
  readonly timeoutMs: number;
  /** Every API key set, used or not: redacted from any upstream text quoted anywhere. */
  readonly secrets: readonly Secret[];
}

/** The preflight's detail while no backend is configured. */
export const WHAT_TO_SET =
  `set ${settingName('web_search', 'searxng_url')} ` +
  `to a SearXNG instance with JSON output enabled, or ${settingName('web_search', 'brave_api_key')} ` +
  `(Brave Search API), or ${settingName('web_search', 'tavily_api_key')} (Tavily)`;

/** The message of every call while no backend is configured. */
export const NOT_CONFIGURED_MESSAGE = `web_search has no search backend: ${WHAT_TO_SET}`;

/** A blank env value means "not set". */
function blank(v: unknown): unknown {
  return typeof v === 'string' && v.trim() === '' ? undefined : v;
}

function numberFromText(v: unknown): unknown {
  const b = blank(v);
  return typeof b === 'string' ? Number(b.trim()) : b;
}

/** `searxng,brave` (env) or `[searxng, brave]` (YAML). */
function listFromText(v: unknown): unknown {
  const b = blank(v);
  if (typeof b !== 'string') return b;
  return b
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const httpUrl = z.preprocess(
  blank,
  z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:8080' })
    .refine((u) => {
      const url = new URL(u);
      return url.username === '' && url.password === '';
    }, 'put no user:password in the URL')
    .refine((u) => {
      const url = new URL(u);
      return url.search === '' && url.hash === '';
    }, 'expected a base URL without ?query or #fragment')
    .optional(),
);

const apiKey = z.preprocess(
  blank,
  z
    .string('expected the API key as a string')
    .trim()
    // Real keys are ~30+ characters; a short one would also be redacted out of ordinary words.
    .min(MIN_KEY_LENGTH, 'too short for an API key')
    .max(512, 'too long for an API key')
    .optional(),
);

const count = (max: number) =>
  z.preprocess(
    numberFromText,
    z.int(`expected a whole number from 1 to ${max}`).min(1).max(max).optional(),
  );

const shape = {
  searxng_url: httpUrl,
  brave_api_key: apiKey,
  tavily_api_key: apiKey,
  brave_url: httpUrl,
  tavily_url: httpUrl,
  result_limit: count(100),
  max_result_limit: count(100),
  timeout_seconds: z.preprocess(
    numberFromText,
    z
      .number(`expected seconds from 0.1 to ${MAX_TIMEOUT_SECONDS} (a whole call is capped there)`)
      .min(0.1)
      .max(MAX_TIMEOUT_SECONDS)
      .optional(),
  ),
  backends: z.preprocess(
    listFromText,
    z
      .array(z.enum(BACKENDS))
      .min(1, 'name at least one backend, or leave the key unset')
      .refine((l) => new Set(l).size === l.length, 'names a backend twice')
      .optional(),
  ),
};

const LooseSchema = z.strictObject(shape, {
  error: unknownKeysWords('web_search', Object.keys(shape)),
});
type Loose = z.output<typeof LooseSchema>;

/**
 * The config schema the SDK checks at worker start. Besides each key's type: `result_limit`
 * may not exceed `max_result_limit`, and every backend named in `backends` must be configured.
 */
export const WebSearchConfigSchema = LooseSchema.transform((raw, ctx): WebSearchSettings => {
  const resultLimit = raw.result_limit ?? DEFAULTS.result_limit;
  const maxResultLimit = raw.max_result_limit ?? DEFAULTS.max_result_limit;
  if (resultLimit > maxResultLimit) {
    ctx.issues.push({
      code: 'custom',
      path: ['result_limit'],
      input: resultLimit,
      message: `result_limit ${resultLimit} is above max_result_limit ${maxResultLimit}`,
    });
  }
  const usable = BACKENDS.filter((name) => raw[ENABLING_KEY[name]] !== undefined);
  const missing = (raw.backends ?? []).filter((name) => !usable.includes(name));
  for (const name of missing) {
    ctx.issues.push({
      code: 'custom',
      path: ['backends'],
      input: name,
      message: `names ${name}, which is not configured: set ${settingName('web_search', ENABLING_KEY[name])}`,
    });
  }
  if (ctx.issues.length > 0) return z.NEVER;
  const order = raw.backends ?? usable;
  const keys = [raw.brave_api_key, raw.tavily_api_key].filter((k) => k !== undefined);
  return Object.freeze({
    backends: Object.freeze(order.map((name) => backendSettings(raw, name))),
    resultLimit,
    maxResultLimit,
    timeoutMs: Math.round((raw.timeout_seconds ?? DEFAULTS.timeout_seconds) * 1000),
    secrets: Object.freeze(keys.map((k) => new Secret(k))),
  });
});

function backendSettings(raw: Loose, name: BackendName): BackendSettings {
  switch (name) {
    case 'searxng':
      return Object.freeze({ name, url: raw.searxng_url! });
    case 'brave':
      return Object.freeze({
        name,
        url: raw.brave_url ?? DEFAULTS.brave_url,
        apiKey: new Secret(raw.brave_api_key!),
      });
    case 'tavily':
      return Object.freeze({
        name,
        url: raw.tavily_url ?? DEFAULTS.tavily_url,
        apiKey: new Secret(raw.tavily_api_key!),
      });
  }
}
