import { z } from 'zod';
import {
  BackendError,
  UpstreamEmptyError,
  probeHttp,
  settingName,
  type HttpBackend,
  type HttpReply,
  readJsonValue,
} from '../../../src/legion/index.js';
import type { Candidate } from '../results.js';
import {
  httpSearchBackend,
  resultItems,
  quote,
  statusError,
  withCheck,
  type BackendAnswer,
  type ProbeOutcome,
  type SearchBackend,
  type SearchRequest,
} from './backend.js';

/**
 * SearXNG's search API (docs.searxng.org/dev/search_api): `GET /search?q=…&format=json`. The
 * JSON format must be listed in `search.formats` of the instance's settings.yml, else the
 * instance answers 403. The answer carries `results` and `unresponsive_engines`, a list of
 * `[engine, reason]` pairs: no results with engines in that list means the search did not
 * run, which is `upstream_empty`, never an empty result.
 */

const URL_KEY = settingName('web_search', 'searxng_url');

const BodySchema = z.object({
  results: z.array(z.unknown()),
  unresponsive_engines: z.array(z.unknown()).nullish(),
});

const ItemSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  publishedDate: z.string().nullish(),
});

const JSON_DISABLED =
  'JSON output is disabled on this instance: add json to search.formats in its settings.yml ' +
  '(search: formats: [html, json]) and restart SearXNG';

const LIMITED =
  "its limiter (server.limiter in settings.yml) refused the request as a bot: add this worker's " +
  'address to botdetection.ip_lists.pass_ip in limiter.toml, or turn the limiter off on a private instance';

export function createSearxng(url: string, timeoutMs: number): SearchBackend {
  return httpSearchBackend({
    name: 'searxng',
    label: 'SearXNG',
    probeSpendsQuota: false,
    url,
    timeoutMs,
    search,
    probe,
  });
}

async function search(
  http: HttpBackend,
  request: SearchRequest,
  signal: AbortSignal,
): Promise<BackendAnswer> {
  const reply = await http.request({
    path: 'search',
    query: { q: request.query, format: 'json', pageno: 1, language: request.language },
    signal,
  });
  if (reply.status !== 200) throw failure(http, reply);
  const { body, items } = resultItems(http, reply, BodySchema, (b) => b.results, ItemSchema);
  const candidates = items.map((r): Candidate => ({
    title: r.title ?? '',
    url: r.url,
    snippet: r.content ?? '',
    published: r.publishedDate ?? undefined,
  }));
  const engines = unresponsive(body.unresponsive_engines ?? []);
  if (candidates.length === 0 && engines.length > 0) {
    throw new UpstreamEmptyError(
      `SearXNG at ${http.origin} returned nothing because its engines failed: ${engines.join(', ')}. ` +
        'This says nothing about the query; retry later or check the engines in SearXNG.',
      { retryable: true },
    );
  }
  const notes =
    engines.length === 0
      ? []
      : [`SearXNG: ${engines.length} engine(s) did not answer: ${engines.join(', ')}`];
  return { candidates, notes };
}

function failure(http: HttpBackend, reply: HttpReply): BackendError {
  if (reply.status === 403) {
    return new BackendError(
      `SearXNG at ${http.origin} refused format=json (HTTP 403): ${JSON_DISABLED}`,
      { retryable: false },
    );
  }
  if (reply.status === 429) {
    return new BackendError(`SearXNG at ${http.origin} answered HTTP 429: ${LIMITED}`, {
      retryable: true,
    });
  }
  return statusError(http, reply, URL_KEY);
}

/** `[["google", "timeout"], ["brave", "Suspended: too many requests"]]` -> `google (timeout)`. */
function unresponsive(list: readonly unknown[]): string[] {
  return list.slice(0, 10).map((entry) => {
    const [engine, reason] = Array.isArray(entry) ? (entry as unknown[]) : [entry];
    const name = quote(String(engine), []) || 'unknown engine';
    const why = quote(reason, []);
    return why ? `${name} (${why})` : name;
  });
}

/**
 * A search without `q` costs nothing (no engine is asked) and still tells the JSON format
 * apart: 403 when it is disabled, 400 `{"error": "No query"}` when it is enabled.
 */
async function probe(http: HttpBackend): Promise<ProbeOutcome> {
  const p = await probeHttp(http, { path: 'search', query: { format: 'json' } });
  const reply = p.reply;
  if (reply === undefined) return p;
  if (reply.status === 403) {
    const detail = `${http.name} at ${http.origin}: HTTP 403 on format=json. ${JSON_DISABLED}`;
    return {
      ok: false,
      checks: withCheck(p.checks, 'auth', { name: 'json_format', ok: false, detail }),
    };
  }
  if (reply.status === 429) {
    const detail = `${http.name} at ${http.origin}: HTTP 429: ${LIMITED}`;
    return {
      ok: false,
      checks: withCheck(p.checks, 'endpoint', { name: 'endpoint', ok: false, detail }),
    };
  }
  if (reply.status !== 200 && reply.status !== 400) return p;
  // 200: a search answer (some versions search for nothing); 400: `{"error": "No query"}`
  const json = readJsonValue(reply.text);
  const key = reply.status === 200 ? 'results' : 'error';
  if (typeof json !== 'object' || json === null || !(key in json)) {
    const detail = `${http.name} at ${http.origin} answered format=json with something that is not SearXNG's JSON: check that ${URL_KEY} points at a SearXNG instance`;
    return {
      ok: false,
      checks: withCheck(p.checks, 'endpoint', { name: 'json_format', ok: false, detail }),
    };
  }
  const checks = withCheck(p.checks, 'endpoint', { name: 'endpoint', ok: true });
  return { ok: true, checks: [...checks, { name: 'json_format', ok: true }] };
}
