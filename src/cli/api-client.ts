import type { z } from 'zod';
import {
  ChatResponseSchema,
  HttpErrorSchema,
  ToolCallReportSchema,
  ToolViewSchema,
  type ChatRequest,
  type ChatResponse,
  type ToolCallReport,
  type ToolView,
} from '../brain/api/index.js';

/**
 * A small client for the brain's HTTP API (`src/brain/api/contract.ts`, docs/api.md), over
 * `fetch`. Every answer is parsed with the contract's schemas; every failure is an
 * {@link ApiError}. The token goes into the Authorization header and nowhere else: no
 * message, error or log line carries it.
 */

/** Failures the client itself detects, next to the codes the brain puts in error bodies. */
export const API_CLIENT_ERROR_CODES = [
  'api_unreachable',
  'api_timeout',
  'api_response_too_large',
  'api_bad_response',
] as const;

/** Transport errors (`fetch failed` causes) that mean "nothing is listening there". */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET',
]);

export interface ApiErrorOptions {
  /** HTTP status; undefined when no answer arrived. */
  status?: number;
  requestId?: string;
  details?: unknown;
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * The brain answered with an error (`status`, and the `code`, message and `request_id` of
 * its `HttpErrorSchema` body), or the client could not get a usable answer (`status`
 * undefined; a code from {@link API_CLIENT_ERROR_CODES}).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  /** `[{path, message}]` for request validation errors. */
  readonly details: unknown;
  /** From a `Retry-After` header (429, 503). */
  readonly retryAfterMs: number | undefined;
  /** Worth retrying unchanged: 429, 502-504, timeouts, an unreachable brain. */
  readonly retryable: boolean;

  constructor(code: string, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.requestId = options.requestId;
    this.details = options.details;
    this.retryAfterMs = options.retryAfterMs;
    this.retryable =
      options.status === undefined
        ? code === 'api_unreachable' || code === 'api_timeout'
        : [429, 502, 503, 504].includes(options.status);
  }
}

export interface ApiClientOptions {
  /** Base URL of the API, such as `http://127.0.0.1:8420` (a path prefix is kept). */
  url: string;
  /** Bearer token. Never printed. */
  token: string;
  /**
   * Deadline of one request, answer body included.
   * @default 120000
   */
  timeoutMs?: number;
  /**
   * Largest answer body accepted; a larger one fails with `api_response_too_large`.
   * @default 4194304 (4 MiB)
   */
  maxResponseBytes?: number;
}

export interface ApiClient {
  /** The base URL, for messages. */
  readonly url: string;
  /** `POST /v1/chat`. */
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** `POST /v1/tools/{name}/invoke`: one call through the policy gate. */
  invoke(tool: string, input: unknown): Promise<ToolCallReport>;
  /** `POST /v1/confirmations/{id}`: runs (`approve`) or cancels a waiting call; 404 when unknown. */
  confirm(id: string, approve: boolean): Promise<ToolCallReport>;
  /** `GET /v1/tools`. */
  tools(): Promise<ToolView[]>;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const ToolViewsSchema = ToolViewSchema.array();

/**
 * A client for the API at `opts.url`.
 * @throws {TypeError} when `url` is not an http(s) URL.
 */
export function createApiClient(opts: ApiClientOptions): ApiClient {
  const base = new URL(opts.url);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`expected an http(s) URL for the brain API, got ${base.protocol}`);
  }
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  const shown = opts.url.replace(/\/+$/, '');
  const call = <S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown) =>
    request(
      {
        base,
        shown,
        token: opts.token,
        timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      },
      { method, path, body },
      schema,
    );
  return {
    url: shown,
    chat: (req) => call('POST', 'v1/chat', ChatResponseSchema, req),
    invoke: (tool, input) =>
      call('POST', `v1/tools/${encodeURIComponent(tool)}/invoke`, ToolCallReportSchema, { input }),
    confirm: (id, approve) =>
      call('POST', `v1/confirmations/${encodeURIComponent(id)}`, ToolCallReportSchema, {
        approve,
      }),
    tools: () => call('GET', 'v1/tools', ToolViewsSchema),
  };
}

interface Endpoint {
  base: URL;
  shown: string;
  token: string;
  timeoutMs: number;
  maxBytes: number;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

async function request<S extends z.ZodType>(
  ep: Endpoint,
  call: Call,
  schema: S,
): Promise<z.infer<S>> {
  const what = `${call.method} /${call.path}`;
  const signal = AbortSignal.timeout(ep.timeoutMs);
  let text: string;
  let res: Response;
  try {
    res = await fetch(new URL(call.path, ep.base), {
      method: call.method,
      headers: {
        authorization: `Bearer ${ep.token}`,
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal,
      redirect: 'error',
    });
    text = await readCapped(res, ep.maxBytes, what);
  } catch (err) {
    throw transportError(err, ep, what);
  }
  if (!res.ok) throw httpError(res, text, what);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError('api_bad_response', `the answer to ${what} is not JSON`, {
      status: res.status,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : '';
    throw new ApiError(
      'api_bad_response',
      `the answer to ${what} does not match the API contract (${where}); is the brain another version?`,
      { status: res.status },
    );
  }
  return parsed.data;
}

/** The body as text, refusing more than `max` bytes (by Content-Length, then as it streams). */
async function readCapped(res: Response, max: number, what: string): Promise<string> {
  const tooLarge = () =>
    new ApiError('api_response_too_large', `the answer to ${what} is larger than ${max} bytes`, {
      status: res.status,
    });
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (res.body === null) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function transportError(err: unknown, ep: Endpoint, what: string): ApiError {
  if (err instanceof ApiError) return err;
  const name = (err as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ApiError(
      'api_timeout',
      `the brain at ${ep.shown} did not answer ${what} within ${ep.timeoutMs} ms`,
      { cause: err },
    );
  }
  const code = errnoOf(err);
  if (code !== undefined && UNREACHABLE.has(code)) {
    return new ApiError(
      'api_unreachable',
      `cannot reach the brain at ${ep.shown}: is \`caesar up\` running? (${code})`,
      { cause: err },
    );
  }
  const reason = (err as Error | undefined)?.message ?? String(err);
  const detail = code === undefined ? reason : `${reason} (${code})`;
  return new ApiError('api_unreachable', `cannot reach the brain at ${ep.shown}: ${detail}`, {
    cause: err,
  });
}

/** The errno-style code of a fetch failure (`fetch failed` wraps it in `cause`). */
function errnoOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function httpError(res: Response, text: string, what: string): ApiError {
  const retryAfterMs = retryAfter(res.headers.get('retry-after'));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = HttpErrorSchema.safeParse(body);
  const common = { status: res.status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  if (!parsed.success) {
    const label = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
    return new ApiError(`http_${res.status}`, `${what} failed: HTTP ${label}`, common);
  }
  const { error, request_id } = parsed.data;
  return new ApiError(error.code, error.message, {
    ...common,
    requestId: request_id,
    details: error.details,
  });
}

/** `Retry-After` in seconds (the form the brain sends) as ms; dates are ignored. */
function retryAfter(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}
