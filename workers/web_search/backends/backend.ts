import type { z } from 'zod';
import {
  BackendError,
  describeFirstIssue,
  HttpBackend,
  jsonRefusal,
  readJsonText,
  type HttpReply,
} from '../../../src/legion/index.js';
import type { BackendName } from '../config.js';
import type { Candidate } from '../results.js';
import { redactSecrets, type Secret } from '../secret.js';

/** What the tool asks of a backend. */
export interface SearchRequest {
  readonly query: string;
  /** Results wanted; a backend may return more (SearXNG) or fewer. */
  readonly count: number;
  readonly language?: string | undefined;
}

/** What a backend found: raw results, best first, and what went wrong along the way. */
export interface BackendAnswer {
  readonly candidates: Candidate[];
  readonly notes: string[];
}

/** One preflight check, named without the backend prefix (`connect`, `auth`). */
export interface ProbeCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface ProbeOutcome {
  readonly ok: boolean;
  readonly checks: ProbeCheck[];
}

/**
 * One search backend over the SDK's HttpBackend. `search` throws a CaesarError the fallback
 * can act on (`backend_error`, `upstream_empty`, `timeout`, `not_configured`) and never
 * returns "no results" for a search that did not run.
 */
export interface SearchBackend {
  readonly name: BackendName;
  /** Name in messages: `SearXNG`, `Brave Search`, `Tavily`. */
  readonly label: string;
  /** True when a probe spends paid quota, so a passing one is worth reusing for a while. */
  readonly probeSpendsQuota: boolean;
  readonly http: HttpBackend;
  search(request: SearchRequest, signal: AbortSignal): Promise<BackendAnswer>;
  /** A short, authenticated request telling apart DNS, connect, TLS, auth and endpoint. */
  probe(): Promise<ProbeOutcome>;
  close(): Promise<void>;
}

/** Longest piece of upstream text (an error detail) quoted in a message. */
const MAX_QUOTED = 200;

/**
 * A short, single-line quote of text an upstream sent (an error detail), with any configured
 * secret removed, or '' when there is none.
 */
export function quote(text: unknown, secrets: readonly Secret[]): string {
  if (typeof text !== 'string') return '';
  const line = redactSecrets(text, secrets).replace(/\s+/g, ' ').trim();
  if (line.length === 0) return '';
  return line.length > MAX_QUOTED ? `${line.slice(0, MAX_QUOTED - 1)}…` : line;
}

/** `GET /search: HTTP 502` for messages; the path without its query. */
function where(http: HttpBackend, reply: HttpReply): string {
  return `${http.name} at ${http.origin} (${new URL(reply.where).pathname}) answered HTTP ${reply.status}`;
}

/** Parses a JSON body against the backend's wire schema, or says why it is not what we expected. */
function parseBody<T>(http: HttpBackend, reply: HttpReply, schema: z.ZodType<T>): T {
  const read = readJsonText(reply.text);
  if (!read.ok && read.why !== 'syntax') {
    throw new BackendError(`${where(http, reply)} with a body that is ${jsonRefusal(read)}`, {
      retryable: false,
    });
  }
  if (!read.ok) {
    const type = header(reply, 'content-type') ?? 'no content type';
    throw new BackendError(
      `${where(http, reply)} with a body that is not JSON (${type}); is ${http.origin} the ${http.name} API?`,
      { retryable: false },
    );
  }
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) {
    const why = describeFirstIssue(parsed.error, 'body');
    throw new BackendError(`${where(http, reply)} with JSON that is not a search answer (${why})`, {
      retryable: false,
    });
  }
  return parsed.data;
}

/**
 * Statuses every backend reads the same way: 5xx is retryable, 404 means a wrong URL, any
 * other status is not retryable. `detail` is an upstream error text, already quoted.
 */
export function statusError(
  http: HttpBackend,
  reply: HttpReply,
  urlKey: string,
  detail = '',
): BackendError {
  const said = detail ? `: ${detail}` : '';
  if (reply.status >= 500) {
    return new BackendError(`${where(http, reply)}${said}; it may be down, retry later`, {
      retryable: true,
    });
  }
  if (reply.status === 404) {
    return new BackendError(`${where(http, reply)} (not found): check ${urlKey}`, {
      retryable: false,
    });
  }
  return new BackendError(`${where(http, reply)}${said}`, { retryable: false });
}

/**
 * A search answer's body and the items of its result list (`list`) that match `item`: the
 * one reading of a 200 answer by every backend.
 */
export function resultItems<B, T>(
  http: HttpBackend,
  reply: HttpReply,
  body: z.ZodType<B>,
  list: (body: B) => readonly unknown[],
  item: z.ZodType<T>,
): { body: B; items: T[] } {
  const parsed = parseBody(http, reply, body);
  return { body: parsed, items: validItems(list(parsed), item) };
}

/** Items of a result list that match the item schema; a malformed item is skipped, not fatal. */
function validItems<T>(items: readonly unknown[], schema: z.ZodType<T>): T[] {
  const out: T[] = [];
  for (const item of items) {
    const parsed = schema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

export function header(reply: HttpReply, name: string): string | undefined {
  const v = reply.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Replaces the probe check called `name` (or appends `check` when there is none). */
export function withCheck(checks: readonly ProbeCheck[], name: string, check: ProbeCheck) {
  const i = checks.findIndex((c) => c.name === name);
  return i < 0 ? [...checks, check] : [...checks.slice(0, i), check, ...checks.slice(i + 1)];
}

/** What tells one backend from another; {@link httpSearchBackend} builds the rest. */
export interface SearchBackendSpec {
  readonly name: BackendName;
  readonly label: string;
  readonly probeSpendsQuota: boolean;
  readonly url: string;
  readonly timeoutMs: number;
  /** Sent with every request (the API key's header); `accept: application/json` is added. */
  readonly headers?: Readonly<Record<string, string>>;
  search(http: HttpBackend, request: SearchRequest, signal: AbortSignal): Promise<BackendAnswer>;
  probe(http: HttpBackend): Promise<ProbeOutcome>;
}

/** One search backend on its own HttpBackend, closed with it. */
export function httpSearchBackend(spec: SearchBackendSpec): SearchBackend {
  const http = new HttpBackend({
    name: spec.label,
    baseUrl: spec.url,
    timeoutMs: spec.timeoutMs,
    headers: { ...spec.headers, accept: 'application/json' },
  });
  return {
    name: spec.name,
    label: spec.label,
    probeSpendsQuota: spec.probeSpendsQuota,
    http,
    search: (request, signal) => spec.search(http, request, signal),
    probe: () => spec.probe(http),
    close: () => http.close(),
  };
}
