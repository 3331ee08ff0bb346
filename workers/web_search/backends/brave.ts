import { z } from 'zod';
import {
  BackendError,
  HttpBackend,
  NotConfiguredError,
  probeHttp,
  settingName,
  type HttpReply,
} from '../../../src/legion/index.js';
import type { Candidate } from '../results.js';
import type { Secret } from '../secret.js';
import {
  header,
  jsonOrUndefined,
  parseBody,
  quote,
  statusError,
  validItems,
  type BackendAnswer,
  type ProbeCheck,
  type ProbeOutcome,
  type SearchBackend,
  type SearchRequest,
} from './backend.js';

/**
 * The Brave Search API web search endpoint (api-dashboard.search.brave.com, "Web search"):
 * `GET /res/v1/web/search?q=…&count=N` with `X-Subscription-Token`. Results are in
 * `web.results[]` (`title`, `url`, `description` with `<strong>` markup, `page_age`, `age`);
 * errors are `{"type": "ErrorResponse", "error": {"code", "detail", "status"}}`. Each
 * successful request counts against the plan's quota, a probe too.
 */

const KEY = settingName('web_search', 'brave_api_key');
const URL_KEY = settingName('web_search', 'brave_url');

/** Brave's query limits; a longer query is not sent (it would only earn a 422). */
export const BRAVE_MAX_QUERY_CHARS = 400;
export const BRAVE_MAX_QUERY_WORDS = 50;
/** Most results one request returns. */
export const BRAVE_MAX_COUNT = 20;

const BodySchema = z.object({
  web: z.object({ results: z.array(z.unknown()) }).nullish(),
});

const ItemSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  page_age: z.string().nullish(),
  age: z.string().nullish(),
});

const ErrorSchema = z.object({
  error: z.object({
    // an enum such as SUBSCRIPTION_TOKEN_INVALID; anything else is not quoted
    code: z
      .string()
      .regex(/^[A-Z0-9_]{1,64}$/)
      .optional()
      .catch(undefined),
    detail: z.string().optional().catch(undefined),
  }),
});

export function createBrave(
  url: string,
  apiKey: Secret,
  { timeoutMs, secrets }: { timeoutMs: number; secrets: readonly Secret[] },
): SearchBackend {
  const http = new HttpBackend({
    name: 'Brave Search',
    baseUrl: url,
    timeoutMs,
    headers: { 'x-subscription-token': apiKey.reveal(), accept: 'application/json' },
  });
  return {
    name: 'brave',
    label: 'Brave Search',
    probeSpendsQuota: true,
    http,
    search: (request, signal) => search(http, secrets, request, signal),
    probe: () => probe(http),
    close: () => http.close(),
  };
}

async function search(
  http: HttpBackend,
  secrets: readonly Secret[],
  request: SearchRequest,
  signal: AbortSignal,
): Promise<BackendAnswer> {
  refuseLongQuery(request.query);
  const reply = await http.request({
    path: 'res/v1/web/search',
    query: {
      q: request.query,
      count: Math.min(request.count, BRAVE_MAX_COUNT),
      search_lang: request.language === undefined ? undefined : braveLanguage(request.language),
    },
    signal,
  });
  if (reply.status !== 200) throw failure(http, reply, secrets);
  const body = parseBody(http, reply, BodySchema);
  const candidates = validItems(body.web?.results ?? [], ItemSchema).map((r): Candidate => ({
    title: r.title ?? '',
    url: r.url,
    snippet: r.description ?? '',
    published: r.page_age ?? r.age ?? undefined,
  }));
  return { candidates, notes: [] };
}

function refuseLongQuery(query: string): void {
  const words = query.split(/\s+/).filter((w) => w.length > 0).length;
  if (query.length <= BRAVE_MAX_QUERY_CHARS && words <= BRAVE_MAX_QUERY_WORDS) return;
  throw new BackendError(
    `Brave Search takes queries of at most ${BRAVE_MAX_QUERY_CHARS} characters and ${BRAVE_MAX_QUERY_WORDS} words; ` +
      `this one has ${query.length} characters and ${words} words, so it was not sent`,
    { retryable: false },
  );
}

/**
 * A BCP 47 tag to Brave's `search_lang`: mostly the language subtag (`de-AT` -> `de`), with
 * Brave's own codes where they differ (`ja` -> `jp`, `zh-TW` -> `zh-hant`).
 */
export function braveLanguage(tag: string): string | undefined {
  const lower = tag.toLowerCase();
  const primary = lower.split('-')[0] ?? lower;
  if (primary === 'all' || primary === 'und') return undefined;
  return BRAVE_LANGUAGES[lower] ?? BRAVE_LANGUAGES[primary] ?? primary;
}

/** Where Brave's `search_lang` is not the language subtag. */
const BRAVE_LANGUAGES: Readonly<Record<string, string>> = {
  ja: 'jp',
  zh: 'zh-hans',
  'zh-cn': 'zh-hans',
  'zh-sg': 'zh-hans',
  'zh-hans': 'zh-hans',
  'zh-tw': 'zh-hant',
  'zh-hk': 'zh-hant',
  'zh-hant': 'zh-hant',
  'en-gb': 'en-gb',
  'pt-br': 'pt-br',
  'pt-pt': 'pt-pt',
};

function failure(http: HttpBackend, reply: HttpReply, secrets: readonly Secret[]): Error {
  const error = ErrorSchema.safeParse(jsonOrUndefined(reply.text)).data?.error;
  const code = error?.code ? ` ${error.code}` : '';
  if (keyRejected(reply, error?.code)) {
    return new NotConfiguredError(
      `Brave Search rejected the API key (HTTP ${reply.status}${code}): set ${KEY} to a valid Brave Search API subscription token`,
    );
  }
  if (reply.status === 429) {
    return new BackendError(
      `Brave Search answered HTTP 429${code}: the plan's rate limit or monthly quota is used up${retryHint(reply)}`,
      { retryable: true },
    );
  }
  return statusError(http, reply, URL_KEY, quote(error?.detail, secrets));
}

/** 401/403, or the 422 `SUBSCRIPTION_TOKEN_INVALID` Brave answers for an unknown key. */
function keyRejected(reply: HttpReply, code: string | undefined): boolean {
  return (
    reply.status === 401 ||
    reply.status === 403 ||
    (reply.status === 422 && code === 'SUBSCRIPTION_TOKEN_INVALID')
  );
}

/**
 * `X-RateLimit-Remaining: 1, 0` with `X-RateLimit-Reset: 1, 1419704` (per second, per month):
 * the windows with nothing left say how long to wait.
 */
function retryHint(reply: HttpReply): string {
  const remaining = numbers(header(reply, 'x-ratelimit-remaining'));
  const reset = numbers(header(reply, 'x-ratelimit-reset'));
  const waits = reset.filter((_, i) => remaining[i] === 0);
  if (waits.length === 0) return '';
  const seconds = Math.max(...waits);
  return seconds >= 86_400
    ? `; the quota resets in ${Math.ceil(seconds / 86_400)} day(s)`
    : `; retry in ${seconds} s`;
}

function numbers(value: string | undefined): number[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .map((s) => (s === '' ? NaN : Number(s)));
}

/**
 * A one-result search: Brave has no free endpoint that checks a key, and bills only
 * successful requests, so the preflight caches a passing probe (see preflight.ts).
 */
async function probe(http: HttpBackend): Promise<ProbeOutcome> {
  const p = await probeHttp(http, {
    path: 'res/v1/web/search',
    query: { q: 'caesar preflight', count: 1 },
  });
  const reply = p.reply;
  if (reply === undefined || p.ok) return p;
  const error = ErrorSchema.safeParse(jsonOrUndefined(reply.text)).data?.error;
  const reached = p.checks.filter((c) => ['dns', 'connect', 'tls'].includes(c.name));
  if (keyRejected(reply, error?.code)) {
    const detail = `Brave Search rejected the API key (HTTP ${reply.status}${error?.code ? ` ${error.code}` : ''}): set ${KEY}`;
    return { ok: false, checks: [...reached, { name: 'auth', ok: false, detail }] };
  }
  if (reply.status === 429) {
    const detail = `Brave Search answered HTTP 429: rate limit or monthly quota used up${retryHint(reply)}`;
    const checks: ProbeCheck[] = [
      ...reached,
      { name: 'auth', ok: true },
      { name: 'quota', ok: false, detail },
    ];
    return { ok: false, checks };
  }
  return p;
}
