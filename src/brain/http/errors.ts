import { CaesarError, errorClass, errorMessage } from '../../errors/index.js';
import type { FieldIssue } from '../../protocol/index.js';

export type { FieldIssue };

/**
 * Codes of requests the HTTP layer refuses itself (the catalogue's `http` kind, docs/api.md,
 * "Errors"). They answer "you asked wrongly" at the HTTP level; a tool call's own failures
 * never appear here, they come back as 200 with a ToolCallReport (ADR 0032).
 */
export type HttpErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'request_timeout'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'headers_too_large';

/**
 * A request the HTTP layer refuses, with its code (and so its status, from the catalogue).
 * Route code throws it; the error handler renders it as `{error: {code, message, details?},
 * request_id}`.
 */
export class HttpApiError extends CaesarError {
  declare readonly code: HttpErrorCode;
  override readonly name = 'HttpApiError';
  override readonly details: readonly FieldIssue[] | undefined;
  /** Extra response headers, such as `WWW-Authenticate`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: HttpErrorCode,
    message: string,
    options: { details?: readonly FieldIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(code, message, { details: options.details });
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** What fastify reads for the status of an error thrown in a hook. */
  get statusCode(): number {
    return this.status;
  }
}

/** 400 with one `{path, message}` per failing field. */
export function invalidRequest(details: readonly FieldIssue[]): HttpApiError {
  const summary = details
    .slice(0, 3)
    .map((d) => `${d.path}: ${d.message}`)
    .join('; ');
  const more = details.length > 3 ? ` (and ${details.length - 3} more)` : '';
  const message = errorMessage('invalid_request', { issues: `${summary}${more}` });
  return new HttpApiError('invalid_request', message, { details });
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
