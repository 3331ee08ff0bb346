/**
 * The one error-code catalogue (docs/errors.md). Worker-side codes travel in reply
 * envelopes; brain-side codes are produced by the dispatcher and the policy gate. Each code
 * has a numeric status for the ADR-32 `Nats-Service-Error-Code` header (HTTP-like, so stock
 * NATS tooling and HTTP callers read it the same way) and a default `retryable` flag.
 */
export const ERROR_CATALOGUE = {
  invalid_input: {
    side: 'worker',
    status: 400,
    retryable: false,
    summary: 'input failed the tool schema',
  },
  not_configured: {
    side: 'worker',
    status: 503,
    retryable: false,
    summary: 'the tool backend is not configured',
  },
  backend_error: {
    side: 'worker',
    status: 502,
    retryable: true,
    summary: 'the backend the tool calls failed',
  },
  upstream_empty: {
    side: 'worker',
    status: 502,
    retryable: true,
    summary:
      'the backend could not run the request and returned nothing (not: the answer is empty)',
  },
  timeout: {
    side: 'worker',
    status: 504,
    retryable: true,
    summary: 'the handler ran past its deadline',
  },
  overloaded: {
    side: 'worker',
    status: 429,
    retryable: true,
    summary: 'concurrency cap and queue are full',
  },
  grant_rejected: {
    side: 'worker',
    status: 403,
    retryable: false,
    summary: 'the dispatch grant was missing, forged, expired or replayed',
  },
  internal: {
    side: 'worker',
    status: 500,
    retryable: false,
    summary: 'a bug in the worker or the SDK',
  },
  no_worker: {
    side: 'brain',
    status: 503,
    retryable: true,
    summary: 'no instance of the tool is connected',
  },
  dispatch_timeout: {
    side: 'brain',
    status: 504,
    retryable: true,
    summary: 'no reply arrived by the deadline',
  },
  bad_reply: {
    side: 'brain',
    status: 502,
    retryable: false,
    summary: 'the reply did not match the envelope schema',
  },
  denied: { side: 'brain', status: 403, retryable: false, summary: 'the policy denied the call' },
  confirmation_required: {
    side: 'brain',
    status: 409,
    retryable: false,
    summary: 'a human must approve the call first',
  },
  rate_limited: {
    side: 'brain',
    status: 429,
    retryable: true,
    summary: 'the matching policy rule is over its rate limit',
  },
  bus_unavailable: {
    side: 'brain',
    status: 503,
    retryable: true,
    summary: 'the brain is not connected to NATS, so nothing is dispatched',
  },
  audit_unavailable: {
    side: 'brain',
    status: 503,
    retryable: true,
    summary: 'the audit log cannot be written, so nothing is dispatched',
  },
  confirmation_not_found: {
    side: 'brain',
    status: 404,
    retryable: false,
    summary: 'no pending confirmation has this id',
  },
  session_not_found: {
    side: 'brain',
    status: 404,
    retryable: false,
    summary: 'no conversation with this id belongs to the caller',
  },
  iteration_limit: {
    side: 'brain',
    status: 508,
    retryable: false,
    summary: 'the planner reached max_iterations before it finished',
  },
} as const satisfies Record<
  string,
  { side: 'worker' | 'brain'; status: number; retryable: boolean; summary: string }
>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

export interface CaesarErrorOptions {
  tool?: string;
  decisionId?: string;
  /** Overrides the catalogue default. */
  retryable?: boolean;
  /** Machine-readable detail, for example the failing field paths of `invalid_input`. */
  details?: unknown;
  cause?: unknown;
}

/**
 * Base class of every coded failure. `retryable` is a property of the failure, set where
 * it happens, never guessed from message text.
 */
export class CaesarError extends Error {
  override readonly name: string = 'CaesarError';
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly tool: string | undefined;
  readonly decisionId: string | undefined;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: CaesarErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CATALOGUE[code].retryable;
    this.tool = options.tool;
    this.decisionId = options.decisionId;
    this.details = options.details;
  }

  /** The numeric status for the `Nats-Service-Error-Code` header and HTTP mapping. */
  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

/** Input failed the tool's schema; `details` lists `{path, message}` per failing field. */
export class InvalidInputError extends CaesarError {
  override readonly name = 'InvalidInputError';
  constructor(message: string, options: Omit<CaesarErrorOptions, 'retryable'> = {}) {
    super('invalid_input', message, options);
  }
}

/** The tool's backend is missing configuration (URL, credentials). */
export class NotConfiguredError extends CaesarError {
  override readonly name = 'NotConfiguredError';
  constructor(message: string, options: Omit<CaesarErrorOptions, 'retryable'> = {}) {
    super('not_configured', message, options);
  }
}

/** The backend the tool talks to failed; retryable unless told otherwise. */
export class BackendError extends CaesarError {
  override readonly name = 'BackendError';
  constructor(message: string, options: CaesarErrorOptions = {}) {
    super('backend_error', message, options);
  }
}

/**
 * The backend answered, but could not do the work (a search whose engines were all down): its
 * empty answer says nothing about the world, and must not look like "no results".
 */
export class UpstreamEmptyError extends CaesarError {
  override readonly name = 'UpstreamEmptyError';
  constructor(message: string, options: CaesarErrorOptions = {}) {
    super('upstream_empty', message, options);
  }
}

/** The work ran past its deadline. */
export class TimeoutError extends CaesarError {
  override readonly name = 'TimeoutError';
  constructor(message: string, options: Omit<CaesarErrorOptions, 'retryable'> = {}) {
    super('timeout', message, options);
  }
}
