import type * as UndiciModule from 'undici';
import type { Agent, Dispatcher } from 'undici';
import { errorClass, type ErrorParts } from '../errors/index.js';

/**
 * The one HTTP client of the shipped network tools (and of an operator's own): undici with a
 * per-request timeout bound to the call's signal, a bounded response body, redirects followed
 * only within the backend's own origin, and a user agent that names CAESAR. Failures are
 * CaesarErrors (`timeout` or `backend_error`) that say which step failed (DNS, connect, TLS,
 * ...), name the backend and its origin, and never carry a header, a query or a body, so a
 * credential cannot reach a message, a log or the audit log.
 */

type Undici = typeof UndiciModule;
let undici: Promise<Undici> | undefined;

/**
 * undici, imported on the first request rather than with the SDK: it costs about 6 MB and
 * 0.2 s to load, and a worker whose backend is never called (the calculator, a tool not yet
 * configured) should not pay that (ADR 0048).
 */
function loadUndici(): Promise<Undici> {
  return (undici ??= import('undici'));
}

/** @default 2 MiB: a search page or a day of calendar data is far smaller. */
export const DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
/** Same-origin redirects followed before giving up. */
const MAX_REDIRECTS = 3;
export const USER_AGENT =
  'CAESAR/0.1 (self-hosted tool worker; +https://github.com/caesar-runtime)';

/** Which step of a request failed. */
export type HttpFailureKind =
  'dns' | 'connect' | 'tls' | 'timeout' | 'too_large' | 'redirect' | 'protocol';

/**
 * A request that got no usable HTTP answer: `timeout`, or `backend_error` for every other
 * step. `kind` says which step failed; `reason` fills the code's template.
 */
export const HttpFailure = errorClass(
  ['timeout', 'backend_error'],
  (
    kind: HttpFailureKind,
    backend: string,
    reason: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ): ErrorParts<'timeout' | 'backend_error', { kind: HttpFailureKind; backend: string }> => ({
    code: kind === 'timeout' ? 'timeout' : 'backend_error',
    params: { reason },
    fields: { kind, backend },
    options: {
      retryable: options.retryable ?? RETRYABLE[kind],
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    },
  }),
);
export type HttpFailure = InstanceType<typeof HttpFailure>;

const RETRYABLE: Record<HttpFailureKind, boolean> = {
  dns: true,
  connect: true,
  tls: false,
  timeout: true,
  too_large: false,
  redirect: false,
  protocol: true,
};

export interface HttpBackendOptions {
  /** What the backend is called in messages: `SearXNG`, `Home Assistant`. */
  name: string;
  /** Base URL; request paths are relative to it and every request stays on its origin. */
  baseUrl: string;
  /** Upper bound of one request (connect, headers and body). */
  timeoutMs: number;
  /** Check the server's TLS certificate. @default true */
  verifyTls?: boolean;
  /** Largest response body read. @default DEFAULT_MAX_RESPONSE_BYTES */
  maxResponseBytes?: number;
  /** Sent with every request (credentials); never part of a message. */
  headers?: Readonly<Record<string, string>>;
}

export interface HttpCall {
  /** @default 'GET' */
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PROPFIND' | 'REPORT' | 'OPTIONS' | 'HEAD';
  /** Relative to the base URL (`search`, `api/states`); a leading `/` is relative too. */
  path?: string;
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  headers?: Readonly<Record<string, string>>;
  /** Sent as `application/json`. */
  json?: unknown;
  body?: string;
  /** The call's signal (`ctx.signal`): aborting it aborts the request. */
  signal?: AbortSignal;
  /** Overrides the backend's timeout for this request (a preflight's shorter one). */
  timeoutMs?: number;
}

export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The URL that answered (after same-origin redirects), without its query. */
  readonly where: string;
}

/** One backend (a SearXNG instance, a Home Assistant): its origin, limits and connection pool. */
export class HttpBackend {
  readonly name: string;
  readonly base: URL;
  readonly #o: Required<Omit<HttpBackendOptions, 'headers'>> & { headers: Record<string, string> };
  /** The connection pool, made on the first request. */
  #agent: Agent | undefined;
  #closed = false;

  constructor(options: HttpBackendOptions) {
    this.name = options.name;
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.#o = {
      verifyTls: true,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      ...options,
      headers: { ...options.headers },
    };
  }

  /** The base URL's origin, for messages (`http://127.0.0.1:8123`). */
  get origin(): string {
    return this.base.origin;
  }

  /** The absolute URL of a path under the base URL. */
  url(path = '', query?: HttpCall['query']): URL {
    const url = new URL(path.replace(/^\/+/, ''), this.base);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    return url;
  }

  /**
   * Sends one request and reads the whole (bounded) answer. Any status is a reply: the
   * caller decides what 401 or 404 means for its backend.
   * @throws HttpFailure when no usable answer came (DNS, connect, TLS, timeout, too large,
   * a redirect to another origin); the call's own abort reason when its signal fired.
   */
  async request(call: HttpCall): Promise<HttpReply> {
    return this.#request(this.url(call.path, call.query), call);
  }

  async #request(start: URL, call: HttpCall): Promise<HttpReply> {
    const timeoutMs = call.timeoutMs ?? this.#o.timeoutMs;
    const timer = AbortSignal.timeout(timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timer]) : timer;
    const { headers, body } = this.#payload(call);
    let url = start;
    let method = call.method ?? 'GET';
    let sendBody = body;
    for (let hop = 0; ; hop++) {
      const sent = { method, headers, body: sendBody, signal };
      const res = await this.#send(url, sent, timeoutMs, call);
      const location = header(res.headers, 'location');
      if (res.statusCode < 300 || res.statusCode >= 400 || location === undefined) {
        const text = await this.#read(res, signal, timeoutMs, call);
        const where = `${url.origin}${url.pathname}`;
        return { status: res.statusCode, headers: res.headers, text, where };
      }
      res.body.resume();
      url = this.#redirect(url, location, hop);
      // As fetch does: 303 turns anything but GET/HEAD into GET, 301/302 only a POST;
      // a PROPFIND that meets a 301 (CalDAV's /.well-known/caldav) stays a PROPFIND.
      const toGet =
        (res.statusCode === 303 && method !== 'GET' && method !== 'HEAD') ||
        ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST');
      if (toGet) {
        method = 'GET';
        sendBody = undefined;
      }
    }
  }

  #redirect(from: URL, location: string, hop: number): URL {
    const next = new URL(location, from);
    if (next.origin !== this.base.origin) {
      throw new HttpFailure(
        'redirect',
        this.name,
        `${this.name} at ${this.origin} redirected to another origin (${next.origin}); refusing. Set the URL to the address that answers.`,
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new HttpFailure(
        'redirect',
        this.name,
        `${this.name} redirected more than ${MAX_REDIRECTS} times`,
      );
    }
    return next;
  }

  /**
   * A WHATWG `fetch` over {@link request}, for libraries that take one (tsdav): same bounds,
   * same origin rule, same errors.
   */
  readonly fetch = async (
    input: string | URL | Request,
    init: RequestInit = {},
  ): Promise<Response> => {
    const target = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (target.origin !== this.base.origin) {
      throw new HttpFailure(
        'redirect',
        this.name,
        `${this.name}: refusing a request to another origin (${target.origin})`,
      );
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const reply = await this.#request(target, {
      method: (init.method ?? 'GET').toUpperCase() as HttpCall['method'],
      headers,
      ...(typeof init.body === 'string' ? { body: init.body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const nullBody = reply.status === 204 || reply.status === 304 || init.method === 'HEAD';
    const out = new Headers();
    for (const [k, v] of Object.entries(reply.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
    }
    return new Response(nullBody ? null : reply.text, { status: reply.status, headers: out });
  };

  async close(): Promise<void> {
    this.#closed = true;
    await this.#agent?.close();
  }

  /** undici's `request` and this backend's pool, both made on the first request. */
  async #client(): Promise<{ request: Undici['request']; agent: Agent }> {
    const { Agent, request } = await loadUndici();
    if (this.#closed) {
      throw Object.assign(new Error(`${this.name} client is closed`), { code: 'UND_ERR_CLOSED' });
    }
    this.#agent ??= new Agent({
      connect: { rejectUnauthorized: this.#o.verifyTls, timeout: this.#o.timeoutMs },
      headersTimeout: this.#o.timeoutMs,
      bodyTimeout: this.#o.timeoutMs,
      connections: 8,
    });
    return { request, agent: this.#agent };
  }

  #payload(call: HttpCall): { headers: Record<string, string>; body: string | undefined } {
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      ...this.#o.headers,
      ...call.headers,
    };
    if (call.json === undefined) return { headers, body: call.body };
    headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(call.json) };
  }

  async #send(
    url: URL,
    opts: {
      method: string;
      headers: Record<string, string>;
      body: string | undefined;
      signal: AbortSignal;
    },
    timeoutMs: number,
    call: HttpCall,
  ): Promise<Dispatcher.ResponseData> {
    try {
      const { request, agent } = await this.#client();
      return await request(url, {
        method: opts.method,
        headers: opts.headers,
        body: opts.body,
        signal: opts.signal,
        dispatcher: agent,
      });
    } catch (err) {
      throw this.#failure(err, url, timeoutMs, call);
    }
  }

  async #read(
    res: Dispatcher.ResponseData,
    signal: AbortSignal,
    timeoutMs: number,
    call: HttpCall,
  ) {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.#o.maxResponseBytes) {
          res.body.destroy();
          throw new HttpFailure(
            'too_large',
            this.name,
            `${this.name} answered more than ${this.#o.maxResponseBytes} bytes; refusing to read it`,
          );
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof HttpFailure) throw err;
      throw this.#failure(signal.aborted ? signal.reason : err, this.base, timeoutMs, call);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  #failure(err: unknown, url: URL, timeoutMs: number, call: HttpCall): Error {
    // the call itself was cut off (deadline, shutdown): its reason is the truth
    if (call.signal?.aborted) {
      const reason: unknown = call.signal.reason;
      return reason instanceof Error
        ? reason
        : new HttpFailure('timeout', this.name, 'the call was aborted');
    }
    return classify(err, this.name, url, timeoutMs);
  }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL']);
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);
const TLS_CODE_RE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_|EPROTO|ERR_OSSL/;

/** Names the failed step of a request; the message has the origin only, never a query. */
function classify(err: unknown, backend: string, url: URL, timeoutMs: number): HttpFailure {
  const e = err as { name?: string; code?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  const host = url.host;
  if (
    e?.name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return new HttpFailure(
      'timeout',
      backend,
      `${backend} at ${url.origin} did not answer within ${timeoutMs} ms`,
      { cause: err },
    );
  }
  if (DNS_CODES.has(code)) {
    return new HttpFailure(
      'dns',
      backend,
      `${backend}: cannot resolve host ${url.hostname} (DNS ${code}); check the URL`,
      { cause: err },
    );
  }
  if (TLS_CODE_RE.test(code)) {
    const hint = code === 'ERR_SSL_WRONG_VERSION_NUMBER' ? ' (is it plain http?)' : '';
    return new HttpFailure('tls', backend, `${backend}: TLS with ${host} failed: ${code}${hint}`, {
      cause: err,
    });
  }
  if (CONNECT_CODES.has(code)) {
    return new HttpFailure(
      'connect',
      backend,
      `${backend}: cannot connect to ${host} (${code}); is it running and reachable?`,
      { cause: err },
    );
  }
  return new HttpFailure(
    'protocol',
    backend,
    `${backend} at ${url.origin}: ${code || e?.name || 'request failed'}`,
    { cause: err },
  );
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
