import type { z } from 'zod';
import {
  CapabilitiesViewSchema,
  ChatEventSchema,
  ChatResponseSchema,
  ConfirmResponseSchema,
  HttpErrorSchema,
  JobListResponseSchema,
  JobViewSchema,
  PendingConfirmationSchema,
  PolicyStatusSchema,
  ToolCallReportSchema,
  ToolViewSchema,
  type CapabilitiesView,
  type ChatEvent,
  type ChatRequest,
  type ChatResponse,
  type ConfirmResponse,
  type JobListResponse,
  type JobView,
  type PendingConfirmation,
  type PolicyStatusView,
  type ToolCallReport,
  type ToolView,
} from '../../brain/api/index.js';
import { CaesarError, errorMessage, isErrorCode } from '../../errors/index.js';
import { describeFirstIssue } from '../../protocol/index.js';
import { MAX_WRAPPED_DEPTH } from '../../text/bounds.js';
import { jsonRefusal, readJsonText, readJsonValue } from '../../text/json-text.js';
import { send as sendHttp, type Answer } from './http.js';

/**
 * A small client for the brain's HTTP API (`src/brain/api/contract.ts`, docs/api.md), over
 * node:http (`api-http.ts`). Every answer is parsed with the contract's schemas; every failure is an
 * {@link ApiError}. The token goes into the Authorization header and nowhere else: no
 * message, error or log line carries it.
 */

/** Transport errors that mean "nothing is listening there". */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

interface ApiErrorOptions {
  /** HTTP status; undefined when no answer arrived. */
  status?: number;
  requestId?: string;
  details?: unknown;
  retryAfterMs?: number;
  cause?: unknown;
}

/** Statuses worth retrying unchanged. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/**
 * The brain answered with an error (`httpStatus`, and the `code`, message and `request_id` of
 * its `HttpErrorSchema` body), or the client could not get a usable answer (`httpStatus`
 * undefined; `api_unreachable`, `api_timeout`, `api_response_too_large`, `api_bad_response`).
 * The brain speaks the same catalogue, so `code` is its code; one this build does not know (a
 * newer brain), or an error page that is not the API's shape, is `api_bad_response`, and
 * `remoteCode` keeps what arrived (`http_502` for a bare status).
 *
 * Written by hand (ADR 0087, `HAND_WRITTEN`): it carries another process's answer, whose code
 * may be one this build does not know and whose words are the brain's, already filled from
 * its catalogue; the client's own `api_*` messages are filled here with `errorMessage`.
 */
export class ApiError extends CaesarError {
  override readonly name = 'ApiError';
  /** The code as the brain sent it, or the client's own. */
  readonly remoteCode: string;
  /** HTTP status of the answer; undefined when none arrived. */
  readonly httpStatus: number | undefined;
  readonly requestId: string | undefined;
  /** From a `Retry-After` header (429, 503). */
  readonly retryAfterMs: number | undefined;

  constructor(code: string, message: string, options: ApiErrorOptions = {}) {
    const known = isErrorCode(code) ? code : 'api_bad_response';
    super(known, message, {
      cause: options.cause,
      details: options.details,
      // an answer's status says it (429, 502-504); else the catalogue (unreachable, timeout)
      ...(options.status === undefined ? {} : { retryable: RETRY_STATUSES.has(options.status) }),
    });
    this.remoteCode = code;
    this.httpStatus = options.status;
    this.requestId = options.requestId;
    this.retryAfterMs = options.retryAfterMs;
  }
}

interface ApiClientOptions {
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

interface ChatCallOptions {
  /**
   * Asks for the event stream (`Accept: text/event-stream`) and receives the turn's `text`,
   * `tool_call` and `tool_result` events as they arrive; the promise still resolves with the
   * whole response (the `done` event), or rejects with the `error` event as an ApiError. A
   * brain that answers plain JSON instead is read as before, with no events.
   */
  onEvent?: (event: ChatEvent) => void;
}

export interface ApiClient {
  /** The base URL, for messages. */
  readonly url: string;
  /** `POST /v1/chat`; streamed when `options.onEvent` is given. */
  chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse>;
  /** `POST /v1/tools/{name}/invoke`: one call through the policy gate. */
  invoke(tool: string, input: unknown): Promise<ToolCallReport>;
  /**
   * `POST /v1/confirmations/{id}`: runs (`approve`) or cancels a waiting call; 404 when
   * unknown. `chat` is the rest of a planner turn that waited for it. A rejection with
   * `stopTurn` stops that turn instead (`stopped`, `also_rejected`).
   */
  confirm(id: string, approve: boolean, options?: { stopTurn?: boolean }): Promise<ConfirmResponse>;
  /** `GET /v1/confirmations`: the calls waiting for a human, oldest first. */
  confirmations(): Promise<PendingConfirmation[]>;
  /** `GET /v1/tools`. */
  tools(): Promise<ToolView[]>;
  /** `GET /v1/capabilities`: what works offline, what could, and every step (ADR 0074). */
  capabilities(): Promise<CapabilitiesView>;
  /** `GET /v1/policy`: the enforced policy, the file on disk, the last refused reload. */
  policyStatus(): Promise<PolicyStatusView>;
  /** `GET /v1/jobs`: the newest jobs first (ADR 0098). */
  jobs(limit?: number): Promise<JobListResponse>;
  /** `GET /v1/jobs/{id}`; 404 when unknown. */
  job(id: string): Promise<JobView>;
  /** `POST /v1/jobs/{id}/cancel`; 404 when unknown. */
  cancelJob(id: string): Promise<JobView>;
}

/** How long one request may take by default: a chat turn may run several tools. */
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const ToolViewsSchema = ToolViewSchema.array();
const PendingConfirmationsSchema = PendingConfirmationSchema.array();

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
  const ep: Endpoint = {
    base,
    shown,
    token: opts.token,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
  const call = <S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown) =>
    request(ep, { method, path, body }, schema);
  return {
    url: shown,
    chat: (req, options) =>
      options?.onEvent === undefined
        ? call('POST', 'v1/chat', ChatResponseSchema, req)
        : chatStream(ep, req, options.onEvent),
    invoke: (tool, input) =>
      call('POST', `v1/tools/${encodeURIComponent(tool)}/invoke`, ToolCallReportSchema, { input }),
    confirm: (id, approve, options) =>
      call('POST', `v1/confirmations/${encodeURIComponent(id)}`, ConfirmResponseSchema, {
        approve,
        ...(options?.stopTurn === true ? { stop_turn: true } : {}),
      }),
    confirmations: () => call('GET', 'v1/confirmations', PendingConfirmationsSchema),
    tools: () => call('GET', 'v1/tools', ToolViewsSchema),
    capabilities: () => call('GET', 'v1/capabilities', CapabilitiesViewSchema),
    policyStatus: () => call('GET', 'v1/policy', PolicyStatusSchema),
    jobs: (limit) =>
      call('GET', `v1/jobs${limit === undefined ? '' : `?limit=${limit}`}`, JobListResponseSchema),
    job: (id) => call('GET', `v1/jobs/${encodeURIComponent(id)}`, JobViewSchema),
    cancelJob: (id) => call('POST', `v1/jobs/${encodeURIComponent(id)}/cancel`, JobViewSchema, {}),
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
  /** @default 'application/json' */
  accept?: string;
}

/** Sends `call`; the answer's body is left to read under the same deadline. */
function send(ep: Endpoint, call: Call, signal: AbortSignal): Promise<Answer> {
  return sendHttp(new URL(call.path, ep.base), {
    method: call.method,
    headers: {
      authorization: `Bearer ${ep.token}`,
      accept: call.accept ?? 'application/json',
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    signal,
  });
}

async function request<S extends z.ZodType>(
  ep: Endpoint,
  call: Call,
  schema: S,
): Promise<z.infer<S>> {
  const what = `${call.method} /${call.path}`;
  const signal = AbortSignal.timeout(ep.timeoutMs);
  let text: string;
  let res: Answer;
  try {
    res = await send(ep, call, signal);
    text = await readCapped(res, ep.maxBytes, what);
  } catch (err) {
    throw transportError(err, ep, what, signal);
  }
  return parseAnswer(res, text, what, schema);
}

/** A whole answer's body: an error status as an ApiError, else the JSON `schema` names. */
function parseAnswer<S extends z.ZodType>(
  res: Answer,
  text: string,
  what: string,
  schema: S,
): z.infer<S> {
  if (!res.ok) throw httpError(res, text, what);
  const read = readJsonText(text, MAX_WRAPPED_DEPTH);
  if (!read.ok) {
    const why = read.why === 'syntax' ? 'not JSON' : jsonRefusal(read);
    throw new ApiError('api_bad_response', badResponse(what, `is ${why}`), {
      status: res.status,
    });
  }
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) {
    const where = describeFirstIssue(parsed.error);
    const problem = `does not match the API contract (${where}); is the brain another version?`;
    throw new ApiError('api_bad_response', badResponse(what, problem), { status: res.status });
  }
  return parsed.data;
}

/** What a streamed chat asks for: the event stream, else the plain answer. */
const STREAM_ACCEPT = 'text/event-stream, application/json;q=0.5';
const CHAT_EVENT_TYPES: ReadonlySet<string> = new Set(
  ChatEventSchema.options.map((o) => o.shape.type.value),
);

/** `POST /v1/chat` asking for the event stream; a plain JSON answer is read as before. */
async function chatStream(
  ep: Endpoint,
  body: ChatRequest,
  onEvent: (event: ChatEvent) => void,
): Promise<ChatResponse> {
  const what = 'POST /v1/chat';
  const signal = AbortSignal.timeout(ep.timeoutMs);
  try {
    const call = { method: 'POST', path: 'v1/chat', body, accept: STREAM_ACCEPT };
    const res = await send(ep, call, signal);
    if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      return parseAnswer(res, await readCapped(res, ep.maxBytes, what), what, ChatResponseSchema);
    }
    return await readTurn(res, ep.maxBytes, what, onEvent);
  } catch (err) {
    throw transportError(err, ep, what, signal);
  }
}

/** A streamed turn: each event to `onEvent` until `done` (the answer) or `error` (thrown). */
async function readTurn(
  res: Answer,
  max: number,
  what: string,
  onEvent: (event: ChatEvent) => void,
): Promise<ChatResponse> {
  const bad = (problem: string) =>
    new ApiError(
      'api_bad_response',
      badResponse(what, `${problem}; is the brain another version?`),
    );
  for await (const { event, data } of sseEvents(res, max, what)) {
    if (!CHAT_EVENT_TYPES.has(event)) continue; // a newer brain's event: not ours to read
    const read = readJsonText(data, MAX_WRAPPED_DEPTH);
    if (!read.ok) {
      throw bad(
        `has a ${event} event that is ${read.why === 'syntax' ? 'not JSON' : jsonRefusal(read)}`,
      );
    }
    const parsed = ChatEventSchema.safeParse({ ...(read.value as object), type: event });
    if (!parsed.success) throw bad(`has a ${event} event that does not match the API contract`);
    const e = parsed.data;
    if (e.type === 'done') return e.response;
    if (e.type === 'error') {
      const id = res.headers.get('x-request-id');
      const req = id === null ? '' : ` (request ${id})`;
      throw new ApiError(
        e.error.code,
        `the brain failed mid-answer: ${e.error.code}: ${e.error.message}${req}`,
      );
    }
    onEvent(e);
  }
  throw bad(`ended before its done event`);
}

/**
 * The events of a `text/event-stream` body as `{event, data}` (WHATWG rules, as far as the
 * brain uses them: `event:` and `data:` fields, comments and other fields skipped, an event
 * complete at a blank line; lines end in LF, CRLF or CR), refusing more than `max` bytes in
 * all. Exported for its tests, which cut a body at every byte.
 */
export async function* sseEvents(
  res: Answer,
  max: number,
  what: string,
): AsyncGenerator<{ event: string; data: string }> {
  if (res.body === null) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let size = 0;
  let event = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > max) {
        const message = errorMessage('api_response_too_large', { what, limit: max });
        throw new ApiError('api_response_too_large', message);
      }
      buffer += decoder.decode(value, { stream: true });
      for (let end = lineEnd(buffer); end !== undefined; end = lineEnd(buffer)) {
        const line = buffer.slice(0, end.at);
        buffer = buffer.slice(end.at + end.length);
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
          event = '';
          data = [];
          continue;
        }
        const colon = line.indexOf(':');
        if (colon === 0) continue; // a comment: the heartbeat
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Where the first complete line of `buffer` ends (`\n`, `\r\n` or `\r`), if one does. */
function lineEnd(buffer: string): { at: number; length: number } | undefined {
  const at = buffer.search(/[\r\n]/);
  if (at < 0) return undefined;
  if (buffer[at] === '\n') return { at, length: 1 };
  if (at + 1 === buffer.length) return undefined; // a `\r` that a `\n` may still follow
  return { at, length: buffer[at + 1] === '\n' ? 2 : 1 };
}

/** The body as text, refusing more than `max` bytes (by Content-Length, then as it streams). */
async function readCapped(res: Answer, max: number, what: string): Promise<string> {
  const tooLarge = () =>
    new ApiError(
      'api_response_too_large',
      errorMessage('api_response_too_large', { what, limit: max }),
      {
        status: res.status,
      },
    );
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (res.body === null) return '';
  const reader = res.body.getReader();
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

/** A failure to get an answer; once the deadline has passed, whatever broke is the timeout. */
function transportError(err: unknown, ep: Endpoint, what: string, deadline: AbortSignal): ApiError {
  if (err instanceof ApiError) return err;
  const name = (err as Error | undefined)?.name;
  if (deadline.aborted || name === 'TimeoutError' || name === 'AbortError') {
    const params = { url: ep.shown, what, timeout: ep.timeoutMs };
    return new ApiError('api_timeout', errorMessage('api_timeout', params), { cause: err });
  }
  const code = errnoOf(err);
  if (code !== undefined && UNREACHABLE.has(code)) {
    const reason = `is \`caesar up\` running? (${code})`;
    const message = errorMessage('api_unreachable', { url: ep.shown, reason });
    return new ApiError('api_unreachable', message, { cause: err });
  }
  const said = (err as Error | undefined)?.message ?? String(err);
  const reason = code === undefined ? said : `${said} (${code})`;
  const message = errorMessage('api_unreachable', { url: ep.shown, reason });
  return new ApiError('api_unreachable', message, { cause: err });
}

/** The errno-style code of a transport failure (on the error, or on a `cause` it wraps). */
function errnoOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `api_bad_response`'s message: what the answer to `what` is, or lacks. */
function badResponse(what: string, problem: string): string {
  return errorMessage('api_bad_response', { what, problem });
}

function httpError(res: Answer, text: string, what: string): ApiError {
  const retryAfterMs = retryAfter(res.headers.get('retry-after'));
  const parsed = HttpErrorSchema.safeParse(readJsonValue(text, MAX_WRAPPED_DEPTH));
  const common = { status: res.status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  if (!parsed.success) {
    const label = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
    const problem = `is HTTP ${label} with a body that is not the API's error`;
    return new ApiError(`http_${res.status}`, badResponse(what, problem), common);
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
