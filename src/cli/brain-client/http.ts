import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

/**
 * The API client's transport: one request over node:http(s), its answer in the shape of a
 * fetch `Response`, as far as the client reads one (so its readers take either). Not
 * `fetch`: the first fetch of a process loads undici and compiles its WASM HTTP parser,
 * about 0.4 s of CPU that a one-shot `caesar chat` pays in full, against a few ms for
 * node:http (ADR 0047). node:https (and TLS with it) loads only for an `https:` URL.
 */

/** What the API client reads of an answer; a fetch `Response` has this shape too. */
export interface Answer {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  /** The body as it arrives; aborting the request's signal errors it. */
  readonly body: ReadableStream<Uint8Array> | null;
}

interface Request {
  method: string;
  headers: OutgoingHttpHeaders;
  body?: string;
  /** Aborts the request and the reading of its answer. */
  signal: AbortSignal;
}

/**
 * Sends one request and resolves once the answer's head has arrived; the body is left to
 * read. A redirect is not followed: it is an answer like any other (not 2xx). Rejects with
 * the socket's error (`ECONNREFUSED`, …), or an `AbortError` when `signal` aborts first.
 */
export async function send(url: URL, req: Request): Promise<Answer> {
  const request = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  const headers: OutgoingHttpHeaders =
    req.body === undefined
      ? req.headers
      : { ...req.headers, 'content-length': Buffer.byteLength(req.body) };
  return new Promise((resolve, reject) => {
    const out = request(url, { method: req.method, headers, signal: req.signal }, (res) =>
      resolve(answerOf(res)),
    );
    out.once('error', reject);
    out.end(req.body);
  });
}

function answerOf(res: IncomingMessage): Answer {
  const status = res.statusCode ?? 0;
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: res.statusMessage ?? '',
    headers: {
      get: (name) => {
        const value = res.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    body: Readable.toWeb(res) as ReadableStream<Uint8Array>,
  };
}
