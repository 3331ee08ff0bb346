import { randomBytes } from 'node:crypto';
import type { ChatResponse, CompletionRequest } from '../api/index.js';
import {
  messageText,
  OPENAI_MODEL_CREATED,
  OPENAI_MODEL_ID,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type CompletionUsage,
  type ModelList,
  type OpenAiError,
} from '../api/openai.js';
import type { MappedError } from './error-map.js';
import type { FieldIssue } from './errors.js';
import { sseData, type EventTurn } from './sse.js';

/**
 * The OpenAI-compatible answers (docs/openai-compat.md), as plain functions over the brain's
 * own shapes: a request onto `CompletionRequest`, a ChatResponse onto `chat.completion` or
 * `chat.completion.chunk`s, a mapped failure onto OpenAI's error body.
 */

export const MODEL_LIST: ModelList = {
  object: 'list',
  data: [
    { id: OPENAI_MODEL_ID, object: 'model', created: OPENAI_MODEL_CREATED, owned_by: 'caesar' },
  ],
};

/** The brain reports no token counts; every count is 0 (documented). */
const NO_USAGE: CompletionUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** Longest `user` kept in the actor; the characters kept. */
const USER_MAX_CHARS = 64;
const USER_UNSAFE = /[^A-Za-z0-9._@+-]+/g;

const DONE_FRAME = 'data: [DONE]\n\n';

/** A checked request onto the brain's call: earlier messages are history, the last is asked. */
export function toCompletionRequest(req: ChatCompletionRequest): CompletionRequest {
  const texts = req.messages.map((m) => ({
    role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const),
    content: messageText(m),
  }));
  const last = texts.pop();
  return { history: texts, message: last?.content ?? '' };
}

/**
 * The audit actor of a compat request: the token name, then `/` and the request's `user`
 * with every run of characters outside `A-Za-z0-9._@+-` made `_`, cut to 64 characters
 * (`open-webui/alice@example.org`). A `user` with nothing left is not recorded.
 */
export function compatActor(tokenName: string, user: string | null | undefined): string {
  if (user === undefined || user === null) return tokenName;
  const clean = user.replace(USER_UNSAFE, '_').slice(0, USER_MAX_CHARS);
  return clean.replace(/_/g, '') === '' ? tokenName : `${tokenName}/${clean}`;
}

/** A fresh completion id: `chatcmpl-` and 18 random bytes, base64url. */
export function completionId(): string {
  return `chatcmpl-${randomBytes(18).toString('base64url')}`;
}

/** The non-streamed answer. */
export function chatCompletion(
  id: string,
  created: number,
  response: ChatResponse,
): ChatCompletion {
  return {
    id,
    object: 'chat.completion',
    created,
    model: OPENAI_MODEL_ID,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: response.reply, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: NO_USAGE,
  };
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

/**
 * The streamed answer, as frames: a first chunk with the role, one chunk per text delta,
 * the reply in one chunk when the turn streamed no text (an intent or offline reply), a
 * last chunk with `finish_reason: "stop"`, a usage chunk when asked, then `data: [DONE]`.
 * Tool events are not sent: the tools ran inside CAESAR, not in the client.
 */
export class CompletionFrames {
  #started = false;
  #texted = false;

  constructor(
    private readonly id: string,
    private readonly created: number,
    private readonly includeUsage: boolean,
  ) {}

  text(delta: string): string {
    if (delta === '') return '';
    this.#texted = true;
    return this.#start() + this.#chunk({ content: delta }, null);
  }

  done(response: ChatResponse): string {
    let out = this.#start();
    if (!this.#texted && response.reply !== '')
      out += this.#chunk({ content: response.reply }, null);
    out += this.#chunk({}, 'stop');
    if (this.includeUsage) out += sseData({ ...this.#base(), choices: [], usage: NO_USAGE });
    return out + DONE_FRAME;
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    return this.#chunk({ role: 'assistant', content: '' }, null);
  }

  #base() {
    return {
      id: this.id,
      object: 'chat.completion.chunk' as const,
      created: this.created,
      model: OPENAI_MODEL_ID,
    };
  }

  #chunk(delta: Delta, finish: 'stop' | null): string {
    const chunk: ChatCompletionChunk = {
      ...this.#base(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(this.includeUsage ? { usage: null } : {}),
    };
    return sseData(chunk);
  }
}

/** The streamed turn of `POST /v1/chat/completions`: text events become content chunks. */
export function completionTurn(
  frames: CompletionFrames,
  run: (onText: (delta: string) => void, signal: AbortSignal) => Promise<ChatResponse>,
): EventTurn<ChatResponse> {
  return {
    run: (emit, signal) => run((delta) => emit(frames.text(delta)), signal),
    done: (response) => frames.done(response),
    // OpenAI's own form of a failure mid-stream: an error body as data, and no [DONE].
    failed: (m) => sseData(openAiErrorBody(m)),
  };
}

/** `error.type` by HTTP status, as OpenAI-compatible servers name them. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** OpenAI's error body for a mapped failure; `param` is the first failing field. */
export function openAiErrorBody(m: MappedError): OpenAiError {
  const first = Array.isArray(m.details) ? (m.details[0] as FieldIssue | undefined) : undefined;
  return {
    error: {
      message: m.message,
      type: errorType(m.status),
      param: first?.path ?? null,
      code: m.code,
    },
  };
}
