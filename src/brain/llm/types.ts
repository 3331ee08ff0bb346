import { errorClass } from '../../errors/index.js';
/**
 * The LLM gateway's neutral shapes: a provider (OpenAI chat completions, Anthropic
 * messages, Ollama's OpenAI endpoint) turns an {@link LlmRequest} into its wire format and
 * its answer back into an {@link LlmResponse}. Nothing above this module knows a provider's
 * wire format; nothing in it knows NATS, the policy or the audit log.
 */

/** One tool call the model asked for. `arguments` is the model's raw JSON text. */
export interface LlmToolCall {
  /** The provider's call id (`call_…`, `toolu_…`); results are matched to it. */
  readonly id: string;
  readonly name: string;
  /** As the model wrote it: may not be JSON at all (the planner checks). */
  readonly arguments: string;
}

/** The transcript a model sees, oldest first. The system prompt travels apart. */
export type LlmMessage =
  | { readonly role: 'user'; readonly text: string }
  | {
      readonly role: 'assistant';
      readonly text: string;
      /** Calls the assistant made in this turn; their results follow as `tool` messages. */
      readonly calls: readonly LlmToolCall[];
    }
  | {
      readonly role: 'tool';
      /** The `LlmToolCall.id` this answers. */
      readonly callId: string;
      readonly name: string;
      /** The result or the error, as text fenced as data (see the planner). */
      readonly content: string;
      /** The call failed or was refused: OpenAI gets it in the content, Anthropic `is_error`. */
      readonly isError: boolean;
    };

/** A tool as a model is offered it: the card as description, the input JSON Schema. */
export interface LlmTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

export interface LlmRequest {
  readonly system: string;
  readonly messages: readonly LlmMessage[];
  readonly tools: readonly LlmTool[];
  /** Aborts the request (the chat was cancelled, the brain is stopping). */
  readonly signal: AbortSignal;
  /** Set: stream, and hand each text delta here as it arrives. */
  readonly onText?: (delta: string) => void;
  /**
   * Called before a retry or a failover when the failed attempt had already handed text to
   * `onText`: that text is void, the next attempt streams its own from the start.
   */
  readonly onTextReset?: () => void;
}

export interface LlmUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface LlmResponse {
  /** The provider's name as configured: `openai`, `anthropic`, `ollama`. */
  readonly provider: string;
  /** The model that answered, as the provider named it. */
  readonly model: string;
  /** Text the model wrote (the reply, or words before its tool calls). */
  readonly text: string;
  readonly calls: readonly LlmToolCall[];
  readonly usage: LlmUsage;
  /** The provider's stop reason (`stop`, `tool_calls`, `end_turn`, `tool_use`, `length`). */
  readonly stopReason: string;
}

/** One configured model endpoint. Implementations make exactly one request per call. */
export interface LlmProvider {
  /** `openai`, `anthropic` or `ollama`. */
  readonly name: string;
  readonly model: string;
  /**
   * Where it answers, for messages: the base URL's host and port (`api.openai.com`,
   * `127.0.0.1:11434`), never a path, a query or credentials.
   */
  readonly origin?: string;
  /** @throws LlmError */
  complete(request: LlmRequest): Promise<LlmResponse>;
}

/** Why a model request failed; `retryable` decides retries, and the failover. */
export type LlmErrorKind =
  /** 429, with the wait the server asked for when it said. */
  | 'rate_limited'
  /**
   * The account's quota or spend limit is used up (OpenAI 429 `insufficient_quota`,
   * Anthropic 402 or 429 `enforced_spend_limit_reached`): waiting does not help. Not retried;
   * the next provider is tried.
   */
  | 'quota'
  /** 5xx, 529 (overloaded), a dropped connection mid-answer. */
  | 'server'
  | 'timeout'
  /** DNS, connection refused, TLS: the endpoint cannot be reached. */
  | 'connect'
  /** 401/403: the API key. Not retried; the next provider is tried. */
  | 'auth'
  /** 400/404/422: the request or the model name. Not retried; the next provider is tried. */
  | 'bad_request'
  /** An answer that is not the wire format. */
  | 'bad_response'
  /** The caller's signal fired. Neither retried nor failed over. */
  | 'aborted';

/** The failures retried against the same provider (after a backoff); the rest fail over. */
const RETRIED: ReadonlySet<LlmErrorKind> = new Set(['rate_limited', 'server', 'timeout']);

export interface LlmErrorOptions {
  /** `api.openai.com`: the message names it after the provider. */
  readonly origin?: string;
  readonly status?: number;
  /** From `Retry-After` (or `retry-after-ms`) on a 429 or 503. */
  readonly retryAfterMs?: number;
  /**
   * A few words for a list of what was tried (`429 rate limited`, `connection refused`,
   * `timed out after 60 s`); the message says it all.
   */
  readonly summary?: string;
  readonly cause?: unknown;
}

/**
 * One request to a model failed; `kind` says how (catalogue code `llm_request_failed`):
 * `new LlmError('timeout', 'openai', 'timed out after 60 s', { origin: 'api.openai.com' })`
 * reads "openai at api.openai.com: timed out after 60 s".
 */
export const LlmError = errorClass(
  'llm_request_failed',
  (
    kind: LlmErrorKind,
    /** `openai`, `anthropic`, `ollama`. */
    provider: string,
    problem: string,
    options: LlmErrorOptions = {},
  ) => ({
    params: {
      provider: options.origin === undefined ? provider : `${provider} at ${options.origin}`,
      problem,
    },
    fields: { kind, provider, options },
    options: { cause: options.cause, retryable: RETRIED.has(kind) },
  }),
);
export type LlmError = InstanceType<typeof LlmError>;
