/**
 * Error codes of the HTTP layer itself (docs/api.md, "Errors"). They answer "you asked
 * wrongly" at the HTTP level; a tool call's own failures never appear here, they come back
 * as 200 with a ToolCallReport (ADR 0032).
 */
export const HTTP_ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  confirmation_not_found: 404,
  request_timeout: 408,
  body_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  headers_too_large: 431,
  internal: 500,
} as const satisfies Record<string, number>;

export type HttpErrorCode = keyof typeof HTTP_ERROR_STATUS;

/** One failing field of a request: `{path: 'message', message: 'at most 8000 characters'}`. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * A request the HTTP layer refuses, with its status and code. Route code throws it; the
 * error handler renders it as `{error: {code, message, details?}, request_id}`.
 */
export class HttpApiError extends Error {
  override readonly name = 'HttpApiError';
  readonly code: HttpErrorCode;
  readonly statusCode: number;
  readonly details: readonly FieldIssue[] | undefined;
  /** Extra response headers, such as `WWW-Authenticate`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: HttpErrorCode,
    message: string,
    options: { details?: readonly FieldIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.statusCode = HTTP_ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/** 400 with one `{path, message}` per failing field. */
export function invalidRequest(details: readonly FieldIssue[]): HttpApiError {
  const summary = details
    .slice(0, 3)
    .map((d) => `${d.path}: ${d.message}`)
    .join('; ');
  const more = details.length > 3 ? ` (and ${details.length - 3} more)` : '';
  return new HttpApiError('invalid_request', `invalid request: ${summary}${more}`, { details });
}

/** A non-loopback bind was asked for while no API token exists. */
export class HttpBindError extends Error {
  override readonly name = 'HttpBindError';
  readonly code = 'api_bind_refused' as const;
  readonly host: string;

  constructor(host: string) {
    super(
      `refusing to listen on non-loopback address ${host} with no API tokens: add a token to ` +
        'the tokens file (api.tokens_file) or bind to 127.0.0.1',
    );
    this.host = host;
  }
}
