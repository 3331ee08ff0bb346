import type { ServerResponse } from 'node:http';
import { sendJson, startFakeServer, type FakeServer } from './http-server.js';

/**
 * Loopback fakes of the three web search APIs, written from their public references (not from
 * the worker): SearXNG's search API (docs.searxng.org/dev/search_api and webapp.py's JSON
 * answer), the Brave Search API web search endpoint (api-dashboard.search.brave.com, "Web
 * search" and "Response objects") and Tavily's search and usage endpoints (docs.tavily.com,
 * API reference; help.tavily.com "Errors Code"). Each fake's behaviour can be changed between
 * calls through `set`, and `hold` keeps every answer back until a gate opens.
 */

export interface FakeSearch<O> extends FakeServer {
  /** The behaviour now in force (a copy). */
  readonly options: O;
  /** Merges new behaviour in; takes effect for the next request. */
  set(options: Partial<O>): void;
}

/** A gate a fake waits on before answering: `open()` lets held answers go. */
export interface Gate {
  readonly wait: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

async function fake<O extends { hold?: Promise<void> | undefined }>(
  initial: O,
  answer: (
    req: Parameters<Parameters<typeof startFakeServer>[0]>[0],
    res: ServerResponse,
    o: O,
  ) => void,
  tls: boolean,
): Promise<FakeSearch<O>> {
  let options = { ...initial };
  const server = await startFakeServer(
    async (req, res) => {
      const now = options;
      if (now.hold) await now.hold;
      answer(req, res, now);
    },
    { tls },
  );
  return Object.assign(server, {
    get options() {
      return { ...options };
    },
    set(more: Partial<O>) {
      options = { ...options, ...more };
    },
  });
}

function searchParams(url: string | undefined, body: string, contentType: string | undefined) {
  const params = new URL(url ?? '/', 'http://fake').searchParams;
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of new URLSearchParams(body)) params.set(k, v);
  }
  return params;
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
}

// ---------------------------------------------------------------------------------------------
// SearXNG

export interface SearxngResult {
  url: string;
  title: string;
  content?: string;
  publishedDate?: string | null;
  engine?: string;
}

export interface FakeSearxngOptions {
  results: SearxngResult[];
  /** The results for one query, when it has its own (else `results`). */
  resultsFor?: ((query: string) => SearxngResult[] | undefined) | undefined;
  /** `[engine, reason]` pairs, as in `unresponsive_engines`. */
  unresponsive: [string, string][];
  /** `search.formats` of settings.yml. @default ['html', 'json'] */
  formats: string[];
  /** Answer this raw body with status 200 instead (a broken instance, a proxy page). */
  rawBody?: string | undefined;
  /** Answer every request with this status: 429 as the limiter does, 5xx as uwsgi or a proxy. */
  failWith?: number | undefined;
  hold?: Promise<void> | undefined;
}

const OUTPUT_FORMATS = ['html', 'csv', 'json', 'rss'];

/**
 * SearXNG: `GET|POST /` and `/search`. A format not in OUTPUT_FORMATS falls back to html; a
 * known format not in `search.formats` is 403 (Flask's HTML page); no `q` with a non-html
 * format is 400 `{"error": "No query"}`; otherwise the JSON answer with `results`, `answers`,
 * `corrections`, `infoboxes`, `suggestions` and `unresponsive_engines`.
 */
export function startFakeSearxng(
  options: Partial<FakeSearxngOptions> = {},
  { tls = false } = {},
): Promise<FakeSearch<FakeSearxngOptions>> {
  const initial: FakeSearxngOptions = {
    results: [],
    unresponsive: [],
    formats: ['html', 'json'],
    ...options,
  };
  return fake(
    initial,
    (req, res, o) => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (o.failWith === 429) {
        res.writeHead(429, { 'content-type': 'text/plain' });
        return void res.end('Too Many Requests');
      }
      if (o.failWith !== undefined)
        return sendHtml(res, o.failWith, `<h1>Error ${o.failWith}</h1>`);
      if (path !== '/' && path !== '/search') return sendHtml(res, 404, '<h1>Not Found</h1>');
      const params = searchParams(req.url, req.body, req.headers['content-type']);
      let format = params.get('format') ?? 'html';
      if (!OUTPUT_FORMATS.includes(format)) format = 'html';
      if (!o.formats.includes(format)) {
        return sendHtml(
          res,
          403,
          "<h1>Forbidden</h1><p>You don't have permission to access the requested resource.</p>",
        );
      }
      const q = params.get('q');
      if (!q) {
        return format === 'html'
          ? sendHtml(res, 200, '<html>index</html>')
          : sendJson(res, 400, { error: 'No query' });
      }
      if (format !== 'json') return sendHtml(res, 200, `<html>results for ${q}</html>`);
      if (o.rawBody !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(o.rawBody);
      }
      const results = o.resultsFor?.(q) ?? o.results;
      sendJson(res, 200, {
        query: q,
        number_of_results: results.length,
        results: results.map((r, i) => searxngResult(r, i)),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: o.unresponsive,
      });
    },
    tls,
  );
}

function searxngResult(r: SearxngResult, i: number) {
  const engine = r.engine ?? 'duckduckgo';
  let parsed: string[];
  try {
    const u = new URL(r.url);
    parsed = [
      u.protocol.replace(':', ''),
      u.host,
      u.pathname,
      '',
      u.search.slice(1),
      u.hash.slice(1),
    ];
  } catch {
    parsed = ['', '', r.url, '', '', ''];
  }
  return {
    url: r.url,
    title: r.title,
    content: r.content ?? '',
    engine,
    parsed_url: parsed,
    template: 'default.html',
    engines: [engine],
    positions: [i + 1],
    score: 1 / (i + 1),
    category: 'general',
    publishedDate: r.publishedDate ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Brave

export interface BraveResult {
  title: string;
  url: string;
  description?: string;
  page_age?: string;
  age?: string;
}

export interface FakeBraveOptions {
  /** The one valid subscription token. */
  key: string;
  results: BraveResult[];
  /** Status for a token that is present but wrong. @default 422 (SUBSCRIPTION_TOKEN_INVALID) */
  invalidKeyStatus: 401 | 422;
  /** When set, every request with a valid token is answered 429 RATE_LIMITED with these headers. */
  rateLimited?: { remaining: string; reset: string } | undefined;
  /** Answer this status with a Brave ErrorResponse instead (500, 503, …). */
  failWith?: number | undefined;
  hold?: Promise<void> | undefined;
}

function braveError(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  headers = {},
) {
  const text = JSON.stringify({
    type: 'ErrorResponse',
    error: { id: '8c1b3c7f-fake', status, code, detail, meta: {} },
    time: Math.floor(Date.now() / 1000),
  });
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/**
 * Brave Search: `GET /res/v1/web/search` with `X-Subscription-Token`. `q` is required, at most
 * 400 characters and 50 words; `count` 1-20 (default 20). Answers `{type: "search", query,
 * web: {type: "search", results}}` (no `web` when nothing was found) and rate-limit headers.
 */
export function startFakeBrave(
  options: Partial<FakeBraveOptions> & { key: string },
  { tls = false } = {},
): Promise<FakeSearch<FakeBraveOptions>> {
  const initial: FakeBraveOptions = { results: [], invalidKeyStatus: 422, ...options };
  return fake(
    initial,
    (req, res, o) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname !== '/res/v1/web/search')
        return braveError(res, 404, 'RESOURCE_NOT_FOUND', 'Resource not found.');
      const token = req.headers['x-subscription-token'];
      if (token === undefined)
        return braveError(
          res,
          401,
          'SUBSCRIPTION_TOKEN_INVALID',
          'The provided subscription token is invalid.',
        );
      if (token !== o.key) {
        return braveError(
          res,
          o.invalidKeyStatus,
          'SUBSCRIPTION_TOKEN_INVALID',
          'The provided subscription token is invalid.',
        );
      }
      if (o.failWith !== undefined)
        return braveError(res, o.failWith, 'INTERNAL_ERROR', 'Something went wrong.');
      if (o.rateLimited) {
        return braveError(res, 429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.', {
          'x-ratelimit-limit': '1, 2000',
          'x-ratelimit-remaining': o.rateLimited.remaining,
          'x-ratelimit-reset': o.rateLimited.reset,
        });
      }
      const q = url.searchParams.get('q') ?? '';
      const words = q.split(/\s+/).filter(Boolean).length;
      const count = Number(url.searchParams.get('count') ?? '20');
      if (
        q === '' ||
        q.length > 400 ||
        words > 50 ||
        !Number.isInteger(count) ||
        count < 1 ||
        count > 20
      ) {
        return braveError(res, 422, 'VALIDATION', 'Unable to validate request parameter(s)');
      }
      const results = o.results.slice(0, count).map((r) => ({
        type: 'search_result',
        title: r.title,
        url: r.url,
        description: r.description ?? '',
        is_source_local: false,
        is_source_both: false,
        language: 'en',
        family_friendly: true,
        meta_url: {
          scheme: 'https',
          netloc: new URL(r.url).host,
          hostname: new URL(r.url).hostname,
          path: '',
        },
        ...(r.page_age === undefined ? {} : { page_age: r.page_age }),
        ...(r.age === undefined ? {} : { age: r.age }),
      }));
      const text = JSON.stringify({
        type: 'search',
        query: { original: q, more_results_available: false },
        ...(results.length === 0
          ? {}
          : { web: { type: 'search', results, family_friendly: true } }),
      });
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-ratelimit-limit': '1, 2000',
        'x-ratelimit-remaining': '0, 1999',
        'x-ratelimit-reset': '1, 2419200',
      });
      res.end(text);
    },
    tls,
  );
}

// ---------------------------------------------------------------------------------------------
// Tavily

export interface TavilyResult {
  title: string;
  url: string;
  content?: string;
  published_date?: string;
}

export interface FakeTavilyOptions {
  /** The one valid API key (`Authorization: Bearer <key>`). */
  key: string;
  results: TavilyResult[];
  /** Answer searches with this status and Tavily's `{"detail": {"error"}}` body (429, 432, 433, 500). */
  failWith?: number | undefined;
  /** The `detail.error` text of `failWith` (default: Tavily's own for that status). */
  failDetail?: string | undefined;
  /** `key.usage` / `key.limit` of `GET /usage` (limit null: unlimited). */
  usage: { used: number; limit: number | null };
  hold?: Promise<void> | undefined;
}

const TAVILY_ERRORS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized: missing or invalid API key.',
  429: 'Your request has been blocked due to excessive requests. Please reduce rate of requests.',
  432: "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com",
  433: 'This request exceeds the pay-as-you-go limit. You can increase your limit on the Tavily dashboard.',
  500: 'Internal Server Error',
};

function tavilyError(
  res: ServerResponse,
  status: number,
  error = TAVILY_ERRORS[status] ?? 'Error',
) {
  sendJson(res, status, { detail: { error } });
}

/**
 * Tavily: `POST /search` with `Authorization: Bearer <key>` and a JSON body (`query` required,
 * at most 400 characters; `max_results` 0-20, default 5) answered with `{query, answer, images,
 * results: [{title, url, content, score, raw_content}], response_time, request_id}`;
 * `GET /usage` answers `{key: {usage, limit}, account: {…}}` without spending a credit.
 */
export function startFakeTavily(
  options: Partial<FakeTavilyOptions> & { key: string },
  { tls = false } = {},
): Promise<FakeSearch<FakeTavilyOptions>> {
  const initial: FakeTavilyOptions = { results: [], usage: { used: 12, limit: 1000 }, ...options };
  return fake(
    initial,
    (req, res, o) => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (req.headers.authorization !== `Bearer ${o.key}`) return tavilyError(res, 401);
      if (path === '/usage' && req.method === 'GET') {
        return sendJson(res, 200, {
          key: { usage: o.usage.used, limit: o.usage.limit },
          account: {
            current_plan: 'Researcher',
            plan_usage: o.usage.used,
            plan_limit: 1000,
            paygo_usage: 0,
            paygo_limit: null,
          },
        });
      }
      if (path !== '/search' || req.method !== 'POST')
        return sendJson(res, 404, { detail: 'Not Found' });
      if (o.failWith !== undefined) return tavilyError(res, o.failWith, o.failDetail);
      let body: { query?: unknown; max_results?: unknown };
      try {
        body = JSON.parse(req.body) as typeof body;
      } catch {
        return tavilyError(res, 400, 'Invalid JSON body');
      }
      if (typeof body.query !== 'string' || body.query === '')
        return tavilyError(res, 400, 'Query is missing.');
      if (body.query.length > 400)
        return tavilyError(res, 400, 'Query is too long. Max query length is 400 characters.');
      const max = body.max_results ?? 5;
      if (typeof max !== 'number' || max < 0 || max > 20)
        return tavilyError(res, 400, 'max_results must be between 0 and 20.');
      sendJson(res, 200, {
        query: body.query,
        follow_up_questions: null,
        answer: null,
        images: [],
        results: o.results.slice(0, max).map((r, i) => ({
          title: r.title,
          url: r.url,
          content: r.content ?? '',
          score: 0.9 - i * 0.1,
          raw_content: null,
          ...(r.published_date === undefined ? {} : { published_date: r.published_date }),
        })),
        response_time: 0.42,
        request_id: 'req-fake-1',
      });
    },
    tls,
  );
}
