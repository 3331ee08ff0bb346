import { parseRetryAfter } from './retry-after.js';
import { LlmError, type LlmErrorKind } from './types.js';

/**
 * SDK failures -> {@link LlmError}. Both official SDKs (openai, @anthropic-ai/sdk) share one
 * error shape (`APIError` with `status`, `headers` and the parsed body; `APIUserAbortError`;
 * `APIConnectionError` and its `APIConnectionTimeoutError`), so one mapping serves both; each
 * provider passes its SDK's classes. Every message names the provider and the endpoint's
 * origin, carries at most 200 characters of what the server said, and never the API key.
 *
 * | failure                                        | kind          | retried |
 * | ---------------------------------------------- | ------------- | ------- |
 * | the caller's signal                            | aborted       | never   |
 * | the endpoint's timeout, SDK timeout, 408       | timeout       | yes     |
 * | 429 (`retry-after-ms` / `retry-after`)         | rate_limited  | yes     |
 * | 429 insufficient_quota / spend limit, 402      | quota         | no      |
 * | 5xx, 529 overloaded, 409, error event mid-stream, connection dropped | server | yes |
 * | refused, DNS, unreachable, TLS                 | connect       | no      |
 * | 401, 403                                       | auth          | no      |
 * | 400, 404, 413, 422, other 4xx                  | bad_request   | no      |
 * | a body that is not the wire format             | bad_response  | no      |
 *
 * "Not retried" still fails over to the next provider; only `aborted` stops the chain.
 */

type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes of one official SDK. */
export interface SdkErrors {
  readonly APIError: ErrorClass;
  readonly APIUserAbortError: ErrorClass;
  readonly APIConnectionError: ErrorClass;
  readonly APIConnectionTimeoutError: ErrorClass;
}

export interface ErrorContext {
  readonly provider: string;
  /** `api.openai.com`, `127.0.0.1:11434`. */
  readonly origin: string;
  /** Scrubbed from every message. */
  readonly apiKey?: string;
  readonly timeoutMs: number;
  readonly scope: { readonly callerAborted: boolean; readonly timedOut: boolean };
  /** For an HTTP-date `Retry-After`. */
  readonly nowMs: number;
}

/** Strings that look like API keys, wherever a server echoes one back (masked or not). */
const KEY_LIKE = /\b(?:sk|pk|rk)-[A-Za-z0-9_*.-]{6,}|\bBearer\s+\S+/g;
const DETAIL_MAX = 200;

/** Collapses, caps and scrubs text a server sent, so it can go into a message. */
export function scrubDetail(text: string, apiKey?: string): string {
  let s = text;
  // a key of a few characters is no secret, and scrubbing it would garble the text
  if (apiKey !== undefined && apiKey.length >= 4) s = s.split(apiKey).join('[redacted]');
  s = s.replace(KEY_LIKE, '[redacted]').replace(/\s+/g, ' ').trim();
  return s.length > DETAIL_MAX ? `${s.slice(0, DETAIL_MAX)}…` : s;
}

/** `host[:port]` of a base URL: what messages name, never a path or credentials. */
export function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return '(bad URL)';
  }
}

/** Builds the error with the message every failure has: provider, origin, summary, detail. */
export function llmError(
  kind: LlmErrorKind,
  ctx: ErrorContext,
  summary: string,
  detail: string | undefined,
  extra: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
): LlmError {
  const said = detail === undefined || detail === '' ? '' : `: ${scrubDetail(detail, ctx.apiKey)}`;
  return new LlmError(kind, ctx.provider, `${summary}${said}`, {
    ...extra,
    origin: ctx.origin,
    summary,
  });
}

/** Maps whatever the SDK threw (or the stream raised) to an LlmError. */
export function toLlmError(err: unknown, sdk: SdkErrors, ctx: ErrorContext): LlmError {
  if (err instanceof LlmError) return err;
  if (ctx.scope.callerAborted)
    return llmError('aborted', ctx, 'aborted', undefined, { cause: err });
  if (ctx.scope.timedOut || err instanceof sdk.APIConnectionTimeoutError) {
    return llmError('timeout', ctx, `timed out after ${seconds(ctx.timeoutMs)}`, undefined, {
      cause: err,
    });
  }
  if (err instanceof sdk.APIUserAbortError) {
    return llmError('aborted', ctx, 'aborted', undefined, { cause: err });
  }
  if (err instanceof sdk.APIConnectionError)
    return networkError(err, ctx) ?? connectFailed(err, ctx);
  if (err instanceof sdk.APIError) return apiError(err as ApiErrorLike, ctx);
  if (err instanceof SyntaxError) {
    return llmError('bad_response', ctx, 'bad response', `not JSON (${err.message})`, {
      cause: err,
    });
  }
  return (
    networkError(err, ctx) ??
    llmError('bad_response', ctx, 'bad response', errorMessage(err), { cause: err })
  );
}

interface ApiErrorLike extends Error {
  readonly status: number | undefined;
  readonly headers: { get(name: string): string | null } | undefined;
  readonly error: unknown;
}

function apiError(err: ApiErrorLike, ctx: ErrorContext): LlmError {
  const status = err.status;
  const detail = bodyMessage(err.error) ?? stripStatus(err.message, status);
  const codes = errorCodes(err);
  const extra = { cause: err, ...(status === undefined ? {} : { status }) };
  if (status === undefined) return streamError(codes, detail, ctx, extra);
  if (
    status === 402 ||
    codes.has('insufficient_quota') ||
    codes.has('enforced_spend_limit_reached')
  )
    return llmError('quota', ctx, `${status} quota exhausted`, detail, extra);
  if (status === 429 || status === 503) {
    const retryAfterMs = parseRetryAfter(err.headers, ctx.nowMs);
    const after = retryAfterMs === undefined ? '' : ` (retry after ${seconds(retryAfterMs)})`;
    const what = status === 429 ? 'rate limited' : 'unavailable';
    const kind = status === 429 ? 'rate_limited' : 'server';
    return llmError(kind, ctx, `${status} ${what}${after}`, detail, {
      ...extra,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status === 408) return llmError('timeout', ctx, '408 request timeout', detail, extra);
  if (status === 401 || status === 403) {
    const what = status === 401 ? 'API key refused' : 'forbidden';
    return llmError('auth', ctx, `${status} ${what}`, detail, extra);
  }
  if (status === 529) return llmError('server', ctx, '529 overloaded', detail, extra);
  if (status >= 500 || status === 409) {
    return llmError('server', ctx, `${status} server error`, detail, extra);
  }
  const what = status === 404 ? 'not found (model or URL)' : 'bad request';
  return llmError('bad_request', ctx, `${status} ${what}`, detail, extra);
}

/** An error event inside a stream: no HTTP status, only the body's type. */
function streamError(
  codes: ReadonlySet<string>,
  detail: string | undefined,
  ctx: ErrorContext,
  extra: { cause: unknown },
): LlmError {
  if (codes.has('rate_limit_error') || codes.has('rate_limit_exceeded'))
    return llmError('rate_limited', ctx, 'rate limited mid-answer', detail, extra);
  if (codes.has('invalid_request_error'))
    return llmError('bad_request', ctx, 'bad request (in the stream)', detail, extra);
  if (codes.has('authentication_error') || codes.has('permission_error'))
    return llmError('auth', ctx, 'API key refused (in the stream)', detail, extra);
  const what = codes.has('overloaded_error') ? 'overloaded mid-answer' : 'error mid-answer';
  return llmError('server', ctx, what, detail, extra);
}

const REFUSED = new Set(['ECONNREFUSED']);
const NO_HOST = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EHOSTDOWN']);
const DROPPED = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNABORTED',
]);
const CONNECT_TIMEOUT = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** A failure the network reported (by its code somewhere in the cause chain), or undefined. */
function networkError(err: unknown, ctx: ErrorContext): LlmError | undefined {
  const code = causeCode(err);
  const extra = { cause: err };
  if (code === undefined) {
    return isTerminated(err)
      ? llmError('server', ctx, 'connection dropped mid-answer', undefined, extra)
      : undefined;
  }
  if (REFUSED.has(code)) return llmError('connect', ctx, 'connection refused', undefined, extra);
  if (NO_HOST.has(code)) return llmError('connect', ctx, 'host not found', code, extra);
  if (UNREACHABLE.has(code)) return llmError('connect', ctx, 'unreachable', code, extra);
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return llmError('connect', ctx, 'TLS error', code, extra);
  if (DROPPED.has(code)) return llmError('server', ctx, 'connection dropped', code, extra);
  if (CONNECT_TIMEOUT.has(code)) return llmError('timeout', ctx, 'connect timed out', code, extra);
  return undefined;
}

function connectFailed(err: Error, ctx: ErrorContext): LlmError {
  const inner = err.cause instanceof Error ? err.cause.message : err.message;
  return llmError('connect', ctx, 'connection failed', inner, { cause: err });
}

/** undici's "terminated": the body stopped arriving. */
function isTerminated(err: unknown): boolean {
  return err instanceof TypeError && err.message === 'terminated';
}

function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The `message` in an error body: OpenAI `{message}` (the SDK unwraps `error`), Anthropic `{error: {message}}`. */
function bodyMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  const own = field(body, 'message');
  if (typeof own === 'string') return own;
  const inner = field(field(body, 'error'), 'message');
  return typeof inner === 'string' ? inner : undefined;
}

/** Every code and type the SDK or the body names: `insufficient_quota`, `overloaded_error`. */
function errorCodes(err: ApiErrorLike): Set<string> {
  const body = err.error;
  const candidates = [
    field(err, 'code'),
    field(err, 'type'),
    field(err, 'errorCode'),
    field(body, 'code'),
    field(body, 'type'),
    field(field(body, 'error'), 'type'),
    field(field(body, 'error'), 'code'),
    field(field(field(body, 'error'), 'details'), 'error_code'),
    field(field(body, 'details'), 'error_code'),
  ];
  return new Set(candidates.filter((c): c is string => typeof c === 'string'));
}

function field(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
}

/** The SDKs prefix the status (`429 Rate limit…`); the summary already says it. */
function stripStatus(message: string, status: number | undefined): string | undefined {
  const m = status === undefined ? message : message.replace(new RegExp(`^${status}\\s*`), '');
  return /status code \(no body\)|no status code or body/.test(m) ? undefined : m;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `1.5 s`, `60 s`. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
