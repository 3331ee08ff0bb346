import { z } from 'zod';
import {
  BackendError,
  probeHttp,
  settingName,
  type HttpBackend,
  readJsonValue,
} from '../../../src/legion/index.js';
import type { Candidate } from '../results.js';
import type { Secret } from '../secret.js';
import {
  resultItems,
  type BackendAnswer,
  type ProbeCheck,
  type ProbeOutcome,
  type SearchRequest,
} from './backend.js';
import { keyedFailure, keyedProbeRefusal, keyedBackend, type KeyedApi } from './keyed.js';

/**
 * Tavily's search API (docs.tavily.com, API reference): `POST /search` with
 * `Authorization: Bearer <key>` and a JSON body `{query, max_results, …}`; results are
 * `results[]` (`title`, `url`, `content`, `published_date` for news). Errors are
 * `{"detail": {"error": "…"}}`: 401 bad key, 429 rate limit, 432 plan limit, 433
 * pay-as-you-go limit. `GET /usage` checks the key without spending a credit.
 */

/** Tavily refuses longer queries with a 400; such a query is not sent. */
const TAVILY_MAX_QUERY_CHARS = 400;
/** Most results one request returns. */
const TAVILY_MAX_RESULTS = 20;

const BodySchema = z.object({ results: z.array(z.unknown()) });

const ItemSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  published_date: z.string().nullish(),
});

const ErrorSchema = z.object({ detail: z.object({ error: z.string() }) });

const UsageSchema = z.object({
  key: z.object({ usage: z.number(), limit: z.number().nullish() }),
  account: z
    .object({ plan_usage: z.number().nullish(), plan_limit: z.number().nullish() })
    .nullish()
    .catch(undefined),
});

/** Quota answers: each is retryable once the window or the billing cycle turns over. */
const QUOTA: Readonly<Record<number, string>> = {
  429: 'too many requests: the rate limit is reached',
  432: "the plan's usage limit is reached: upgrade the plan or wait for the next billing cycle",
  433: 'the pay-as-you-go limit is reached: raise it on the Tavily dashboard',
};

/** How Tavily refuses a request, for {@link keyedFailure} and {@link keyedProbeRefusal}. */
const TAVILY: KeyedApi = {
  name: 'tavily',
  label: 'Tavily',
  probeSpendsQuota: false,
  keySetting: settingName('web_search', 'tavily_api_key'),
  validKey: 'a valid Tavily API key',
  urlSetting: settingName('web_search', 'tavily_url'),
  headers: (key) => ({ authorization: `Bearer ${key.reveal()}` }),
  said: (reply) => ({
    detail: ErrorSchema.safeParse(readJsonValue(reply.text)).data?.detail.error,
  }),
  keyRejected: (reply) => reply.status === 401 || reply.status === 403,
  quota: (reply) => QUOTA[reply.status],
};

export const createTavily = keyedBackend(TAVILY, { search, probe });

async function search(
  http: HttpBackend,
  secrets: readonly Secret[],
  request: SearchRequest,
  signal: AbortSignal,
): Promise<BackendAnswer> {
  if (request.query.length > TAVILY_MAX_QUERY_CHARS) {
    throw new BackendError(
      `Tavily takes queries of at most ${TAVILY_MAX_QUERY_CHARS} characters; this one has ${request.query.length}, so it was not sent`,
      { retryable: false },
    );
  }
  const reply = await http.request({
    method: 'POST',
    path: 'search',
    json: {
      query: request.query,
      max_results: Math.min(request.count, TAVILY_MAX_RESULTS),
      search_depth: 'basic',
      topic: 'general',
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    },
    signal,
  });
  if (reply.status !== 200) throw keyedFailure(TAVILY, http, reply, secrets);
  const { items } = resultItems(http, reply, BodySchema, (b) => b.results, ItemSchema);
  const candidates = items.map((r): Candidate => ({
    title: r.title ?? '',
    url: r.url,
    snippet: r.content ?? '',
    published: r.published_date ?? undefined,
  }));
  return { candidates, notes: [] };
}

/** `GET /usage`: authenticated, free, and it says whether the key has credits left. */
async function probe(http: HttpBackend): Promise<ProbeOutcome> {
  const p = await probeHttp(http, { path: 'usage' });
  const refused = keyedProbeRefusal(TAVILY, p);
  if (refused !== undefined) return refused;
  const reply = p.reply;
  if (reply === undefined || !p.ok) return p;
  const usage = UsageSchema.safeParse(readJsonValue(reply.text)).data;
  if (usage === undefined) return p;
  const credits = quotaCheck(usage);
  return { ok: credits.ok, checks: [...p.checks, credits] };
}

/** The key's credits and the account plan's: either one used up fails every search (432). */
function quotaCheck(usage: z.output<typeof UsageSchema>): ProbeCheck {
  const { usage: used, limit } = usage.key;
  const plan = usage.account;
  const planFull =
    typeof plan?.plan_limit === 'number' && (plan.plan_usage ?? 0) >= plan.plan_limit;
  const keyFull = typeof limit === 'number' && used >= limit;
  const ok = !planFull && !keyFull;
  const of = typeof limit === 'number' ? `${used} of ${limit}` : `${used} (no limit)`;
  const why = keyFull
    ? ': searches fail with HTTP 432 until the billing cycle resets'
    : planFull
      ? `; the account plan's ${plan?.plan_limit} credits are used up: searches fail with HTTP 432`
      : '';
  return { name: 'quota', ok, detail: `${of} credits used this billing cycle${why}` };
}
