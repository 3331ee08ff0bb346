import { z } from 'zod';
import {
  BackendError,
  probeHttp,
  settingName,
  type HttpBackend,
  type HttpReply,
  readJsonValue,
} from '../../../src/legion/index.js';
import type { Candidate } from '../results.js';
import type { Secret } from '../secret.js';
import {
  header,
  resultItems,
  type BackendAnswer,
  type ProbeOutcome,
  type SearchRequest,
} from './backend.js';
import { keyedFailure, keyedProbeRefusal, keyedBackend, type KeyedApi } from './keyed.js';

/**
 * The Brave Search API web search endpoint (api-dashboard.search.brave.com, "Web search"):
 * `GET /res/v1/web/search?q=…&count=N` with `X-Subscription-Token`. Results are in
 * `web.results[]` (`title`, `url`, `description` with `<strong>` markup, `page_age`, `age`);
 * errors are `{"type": "ErrorResponse", "error": {"code", "detail", "status"}}`. Each
 * successful request counts against the plan's quota, a probe too.
 */

/** Brave's query limits; a longer query is not sent (it would only earn a 422). */
const BRAVE_MAX_QUERY_CHARS = 400;
const BRAVE_MAX_QUERY_WORDS = 50;
/** Most results one request returns. */
const BRAVE_MAX_COUNT = 20;

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

/** How Brave Search refuses a request, for {@link keyedFailure} and {@link keyedProbeRefusal}. */
const BRAVE: KeyedApi = {
  name: 'brave',
  label: 'Brave Search',
  probeSpendsQuota: true,
  keySetting: settingName('web_search', 'brave_api_key'),
  validKey: 'a valid Brave Search API subscription token',
  urlSetting: settingName('web_search', 'brave_url'),
  headers: (key) => ({ 'x-subscription-token': key.reveal() }),
  said: (reply) => ErrorSchema.safeParse(readJsonValue(reply.text)).data?.error ?? {},
  keyRejected,
  quota: (reply) =>
    reply.status === 429
      ? `the plan's rate limit or monthly quota is used up${retryHint(reply)}`
      : undefined,
};

export const createBrave = keyedBackend(BRAVE, { search, probe });

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
  if (reply.status !== 200) throw keyedFailure(BRAVE, http, reply, secrets);
  const { items } = resultItems(http, reply, BodySchema, (b) => b.web?.results ?? [], ItemSchema);
  const candidates = items.map((r): Candidate => ({
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
  return p.ok ? p : (keyedProbeRefusal(BRAVE, p) ?? p);
}
