import { errorClass, errorEntry, type ErrorParts, type MessageParams } from '../../errors/index.js';
import type { FieldIssue } from '../../protocol/index.js';

export type { FieldIssue };

/**
 * Codes of requests the HTTP layer refuses itself (the catalogue's `http` kind, docs/api.md,
 * "Errors"). They answer "you asked wrongly" at the HTTP level; a tool call's own failures
 * never appear here, they come back as 200 with a ToolCallReport (ADR 0032).
 */
type HttpErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'request_timeout'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'headers_too_large';
export type { HttpErrorCode };

export interface HttpApiErrorOptions {
  /** One `{path, message}` per failing field (`invalid_request`). */
  readonly details?: readonly FieldIssue[];
  /** Extra response headers, such as `WWW-Authenticate`. */
  readonly headers?: Readonly<Record<string, string>>;
}

type HttpApiErrorArgs = {
  [K in HttpErrorCode]: [code: K, params: MessageParams<K>, options?: HttpApiErrorOptions];
}[HttpErrorCode];

interface HttpApiErrorFields {
  readonly details: readonly FieldIssue[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** What fastify reads for the status of an error thrown in a hook. */
  readonly statusCode: number;
}

/**
 * A request the HTTP layer refuses, with its code (and so its status, from the catalogue) and
 * the values of its template: `new HttpApiError('not_found', { what: 'route GET /x' })`. Route
 * code throws it; the error handler renders it as `{error: {code, message, details?},
 * request_id}`.
 */
export const HttpApiError = errorClass(
  [
    'invalid_request',
    'unauthorized',
    'forbidden',
    'not_found',
    'request_timeout',
    'body_too_large',
    'unsupported_media_type',
    'too_many_requests',
    'headers_too_large',
  ] satisfies [HttpErrorCode, ...HttpErrorCode[]],
  (...[code, params, options = {}]: HttpApiErrorArgs) =>
    ({
      code,
      params,
      fields: {
        details: options.details,
        headers: options.headers ?? {},
        statusCode: errorEntry(code).status,
      },
      options: { details: options.details },
    }) as ErrorParts<HttpErrorCode, HttpApiErrorFields>,
);
export type HttpApiError = InstanceType<typeof HttpApiError>;

/** 400 with one `{path, message}` per failing field. */
export function invalidRequest(details: readonly FieldIssue[]): HttpApiError {
  const summary = details
    .slice(0, 3)
    .map((d) => `${d.path}: ${d.message}`)
    .join('; ');
  const more = details.length > 3 ? ` (and ${details.length - 3} more)` : '';
  return new HttpApiError('invalid_request', { issues: `${summary}${more}` }, { details });
}

/** The API's port is taken: says what to do instead of `EADDRINUSE`. */
export const HttpPortTakenError = errorClass(
  'api_port_taken',
  (host: string, port: number, options?: { cause?: unknown }) => ({
    params: { host, port },
    options,
  }),
);
export type HttpPortTakenError = InstanceType<typeof HttpPortTakenError>;

/** A non-loopback bind was asked for while no API token exists. */
export const HttpBindError = errorClass('api_bind_refused', (host: string) => ({
  params: { host },
  fields: { host },
}));
export type HttpBindError = InstanceType<typeof HttpBindError>;
