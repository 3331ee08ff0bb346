import type { FastifyReply, FastifyRequest } from 'fastify';
import { CaesarError, errorEntry, errorMessage } from '../../errors/index.js';
import { HttpApiError, type HttpErrorCode } from './errors.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** What the error handler sends: status, the `error` object of the body, extra headers. */
export interface MappedError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** True for a 500: the handler logs it with its stack. */
  readonly unexpected: boolean;
}

const invalid = (issues: string) => errorMessage('invalid_request', { issues });

/** fastify's own request errors, by code, onto our codes and a fixed message. */
const FASTIFY_ERRORS: Readonly<Record<string, readonly [HttpErrorCode, string]>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['body_too_large', 'request body is larger than the limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    'unsupported_media_type',
    errorMessage('unsupported_media_type', {}),
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'invalid_request',
    invalid('Content-Length does not match the body'),
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_request', invalid('JSON body is empty')],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_request', invalid('body is not valid JSON')],
  FST_ERR_BAD_URL: ['invalid_request', invalid('malformed URL')],
  FST_ERR_MAX_PARAM_LENGTH: ['invalid_request', invalid('a path parameter is too long')],
};

/** A property of a foreign error (fastify's, Node's): their codes are not ours. */
function foreign(err: unknown, key: 'code' | 'statusCode'): unknown {
  return typeof err === 'object' && err !== null
    ? (err as Record<string, unknown>)[key]
    : undefined;
}

const INTERNAL: MappedError = {
  status: 500,
  code: 'internal',
  message: 'internal error',
  unexpected: true,
};

/**
 * Maps anything a route, hook or fastify threw onto the HTTP answer. Tool-level failures
 * never get here (they are 200 reports); what does is either a coded CaesarError (its
 * catalogue status and code), one of fastify's request errors (4xx with our code), or a bug
 * (500 `internal`, logged).
 */
export function mapError(err: unknown, bodyLimitBytes: number): MappedError {
  if (err instanceof CaesarError) return mapCoded(err);
  const code = foreign(err, 'code');
  const known = typeof code === 'string' ? FASTIFY_ERRORS[code] : undefined;
  if (known !== undefined) {
    const [httpCode, text] = known;
    const message =
      httpCode === 'body_too_large' ? errorMessage(httpCode, { limit: bodyLimitBytes }) : text;
    return { status: errorEntry(httpCode).status, code: httpCode, message, unexpected: false };
  }
  const status = foreign(err, 'statusCode');
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Another fastify request error (e.g. a JSON prototype-poisoning attempt).
    const message = invalid('fastify refused it before any route ran');
    return { status, code: 'invalid_request', message, unexpected: false };
  }
  return INTERNAL;
}

/**
 * A coded failure: its catalogue status and code. A `local` code with a 5xx status (a store
 * that cannot be written, say) shows the catalogue's summary instead of its message, which
 * names files and causes that are the operator's business, and is logged like a bug.
 */
function mapCoded(err: CaesarError): MappedError {
  if (err.code === 'internal') return INTERNAL;
  const entry = errorEntry(err.code);
  const hidden = entry.kind === 'local' && entry.status >= 500;
  return {
    status: entry.status,
    code: err.code,
    message: hidden ? entry.summary : err.message,
    ...(hidden || err.details === undefined ? {} : { details: err.details }),
    ...(err instanceof HttpApiError ? { headers: err.headers } : {}),
    unexpected: hidden,
  };
}

/**
 * A bug: logged with its stack under `error` (not pino's `err` serializer, which would copy
 * every enumerable field of the error), never with the request body or headers.
 */
function logUnexpected(req: FastifyRequest, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  const error = { type: e.name, message: e.message, stack: e.stack };
  req.log.error({ error, method: req.method, route: req.routeOptions.url }, 'request failed');
}

/** Logs a mapped failure: a bug with its stack, a refusal at debug. */
export function logMapped(req: FastifyRequest, err: unknown, mapped: MappedError): void {
  if (mapped.unexpected) logUnexpected(req, err);
  else req.log.debug({ status: mapped.status, code: mapped.code }, 'request refused');
}

/** Sends a mapped failure with its status and headers; `body` is the route family's shape. */
export function sendMappedError(
  reply: FastifyReply,
  requestId: string,
  m: MappedError,
  body: unknown,
): void {
  for (const [name, value] of Object.entries(m.headers ?? {})) reply.header(name, value);
  void reply
    .code(m.status)
    .header(REQUEST_ID_HEADER, requestId)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(body);
}
