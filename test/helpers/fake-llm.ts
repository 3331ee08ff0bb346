import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startFakeServer, type FakeServer } from './http-server.js';

/**
 * Loopback fakes of two model APIs, written from their public references (not from the
 * providers): OpenAI's chat completions (platform.openai.com/docs/api-reference/chat: the
 * `chat.completion` object, `chat.completion.chunk` over server-sent events ending in
 * `data: [DONE]`, `stream_options.include_usage`, error bodies `{"error": {message, type,
 * param, code}}`), which Ollama's `/v1` endpoint also speaks, and Anthropic's Messages API
 * (docs.anthropic.com/en/api/messages and /messages-streaming: `x-api-key` and
 * `anthropic-version` headers, content blocks, the `message_start` .. `message_stop` event
 * stream with `ping`s, error bodies `{"type": "error", "error": {type, message}}`).
 *
 * Each fake answers from a script: a queue of answers, one per request (a reply, tool
 * calls, an error status with headers, a hang, a cut connection). With an empty queue it
 * answers 500, or what its `respond` function makes of the request (OpenAI only). Each
 * checks requests the way the real API does where the providers could get it wrong (auth,
 * message order, call ids, tool results), answering 400 as the API would, and keeps every
 * request body for the test to read.
 */

export interface FakeUsage {
  readonly input: number;
  readonly output: number;
}

export interface FakeCall {
  /** @default a fresh `call_…` / `toolu_…` id */
  readonly id?: string;
  readonly name: string;
  /** The arguments as the model writes them: JSON text, or not (a malformed call). */
  readonly arguments: string;
}

export type FakeAnswer =
  | {
      readonly kind: 'answer';
      readonly text?: string;
      readonly calls?: readonly FakeCall[];
      readonly usage?: FakeUsage;
      readonly model?: string;
      /** @default `stop`/`tool_calls` (OpenAI), `end_turn`/`tool_use` (Anthropic) */
      readonly stop?: string;
      /** Streaming: after the first text delta, wait for this before the rest. */
      readonly holdAfterFirst?: Promise<void>;
    }
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      /** The error body's `type` (and OpenAI's `code`). */
      readonly type?: string;
      readonly code?: string;
      readonly message?: string;
    }
  /** No answer until `release` resolves (then `then`, or a 500), or the client leaves. */
  | { readonly kind: 'hang'; readonly release?: Promise<void>; readonly then?: FakeAnswer }
  /** Streaming: the text's first delta, then the connection is destroyed. */
  | { readonly kind: 'drop'; readonly text: string }
  /** Streaming: the text's first delta, then an error event (Anthropic) or error chunk. */
  | {
      readonly kind: 'stream_error';
      readonly text: string;
      readonly type: string;
      readonly message: string;
    }
  /** A 200 whose body is not the wire format. */
  | { readonly kind: 'raw'; readonly body: string; readonly contentType?: string };

export const reply = (
  text: string,
  more: Partial<Extract<FakeAnswer, { kind: 'answer' }>> = {},
): FakeAnswer => ({
  kind: 'answer',
  text,
  ...more,
});

export const calls = (
  list: readonly FakeCall[],
  more: Partial<Extract<FakeAnswer, { kind: 'answer' }>> = {},
): FakeAnswer => ({ kind: 'answer', calls: list, ...more });

export const failure = (
  status: number,
  more: Omit<Extract<FakeAnswer, { kind: 'error' }>, 'kind' | 'status'> = {},
): FakeAnswer => ({ kind: 'error', status, ...more });

export interface FakeLlm extends FakeServer {
  /** Appends answers to the queue. */
  script(...answers: FakeAnswer[]): void;
  /** Every request body sent to the endpoint, parsed, in order. */
  readonly bodies: Record<string, unknown>[];
  /** Requests whose client went away before the answer was complete. */
  readonly abandoned: number;
  /** Answers still queued. */
  readonly pending: number;
}

interface Wire {
  path: string;
  /** `GET` of the API's model list, when the test gave the fake one (else 404). */
  models?: ModelList | undefined;
  /** The answer to a request when the queue is empty (a model that decides per request). */
  respond?: ((body: Record<string, unknown>) => FakeAnswer) | undefined;
  /** A reason to refuse the request as the API would, or undefined. */
  check(
    req: IncomingMessage & { body: string },
    body: Record<string, unknown>,
  ): ApiError | undefined;
  error(res: ServerResponse, e: ApiError): void;
  json(
    body: Record<string, unknown>,
    a: Extract<FakeAnswer, { kind: 'answer' }>,
    n: number,
  ): unknown;
  stream(body: Record<string, unknown>, a: FakeAnswer, n: number): Generator<Frame>;
}

/** The model list an API answers `GET <path>` with, and how it refuses a request for it. */
interface ModelList {
  path: string;
  /** A reason to refuse the request as the API would (a wrong key, a missing header). */
  check(req: IncomingMessage): ApiError | undefined;
  /** The list as the API writes it, for the request's query. */
  body(query: URLSearchParams): unknown;
}

interface ApiError {
  status: number;
  type: string;
  message: string;
  code?: string;
  headers?: Readonly<Record<string, string>>;
}

/** One server-sent event, or a pause, or the end of the connection. */
type Frame = { event?: string; data: string } | { wait: Promise<void> } | { destroy: true };

async function startFake(wire: Wire): Promise<FakeLlm> {
  const queue: FakeAnswer[] = [];
  const bodies: Record<string, unknown>[] = [];
  let abandoned = 0;
  let n = 0;
  const server = await startFakeServer(async (req, res) => {
    let complete = false;
    res.on('close', () => {
      if (!complete) abandoned++;
    });
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    if (req.method === 'GET' && wire.models !== undefined && path === wire.models.path) {
      complete = true;
      const refused = wire.models.check(req);
      return refused
        ? wire.error(res, refused)
        : sendJson(res, 200, wire.models.body(url.searchParams));
    }
    if (req.method !== 'POST' || path !== wire.path) {
      complete = true;
      return wire.error(res, {
        status: 404,
        type: 'not_found_error',
        message: `no route ${req.method} ${path}`,
      });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      complete = true;
      return wire.error(res, {
        status: 400,
        type: 'invalid_request_error',
        message: 'body is not JSON',
      });
    }
    bodies.push(body);
    const refused = wire.check(req, body);
    if (refused) {
      complete = true;
      return wire.error(res, refused);
    }
    let answer = queue.shift() ?? wire.respond?.(body);
    while (answer?.kind === 'hang') {
      if (!answer.release) return; // until the client leaves or the server closes
      await answer.release;
      answer = answer.then;
    }
    n++;
    await send(wire, res, body, answer, n);
    complete = true;
  });
  return Object.defineProperties(server, {
    script: { value: (...answers: FakeAnswer[]) => void queue.push(...answers) },
    bodies: { value: bodies },
    abandoned: { get: () => abandoned },
    pending: { get: () => queue.length },
  }) as FakeLlm;
}

async function send(
  wire: Wire,
  res: ServerResponse,
  body: Record<string, unknown>,
  answer: FakeAnswer | undefined,
  n: number,
): Promise<void> {
  if (answer === undefined) {
    return wire.error(res, {
      status: 500,
      type: 'api_error',
      message: 'fake: no scripted answer',
    });
  }
  if (answer.kind === 'error') {
    return wire.error(res, {
      status: answer.status,
      type: answer.type ?? defaultType(answer.status),
      message: answer.message ?? `fake error ${answer.status}`,
      ...(answer.code === undefined ? {} : { code: answer.code }),
      ...(answer.headers === undefined ? {} : { headers: answer.headers }),
    });
  }
  if (answer.kind === 'raw') {
    res.writeHead(200, { 'content-type': answer.contentType ?? 'application/json' });
    return void res.end(answer.body);
  }
  if (body.stream !== true) {
    if (answer.kind !== 'answer') return void res.socket?.destroy();
    return sendJson(res, 200, wire.json(body, answer, n));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const frame of wire.stream(body, answer, n)) {
    if ('wait' in frame) await Promise.race([frame.wait, closed(res)]);
    else if ('destroy' in frame)
      return void res.socket?.end(); // mid-body: the answer is cut
    else
      await written(res, `${frame.event ? `event: ${frame.event}\n` : ''}data: ${frame.data}\n\n`);
    if (res.destroyed) return;
  }
  res.end();
}

/** Resolves once `text` is handed to the socket (or the connection is gone). */
function written(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => res.write(text, () => resolve()));
}

function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.once('close', () => resolve()));
}

function defaultType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 529) return 'overloaded_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** Text in deltas of a few characters, as models stream it. */
function pieces(text: string): string[] {
  return text.match(/.{1,4}/gsu) ?? [];
}

// ---------------------------------------------------------------------------------------------
// OpenAI chat completions

export interface FakeOpenAiOptions {
  /** The bearer key the fake wants; undefined: any or none (Ollama, llama.cpp). */
  readonly key?: string;
  /** @default '/v1/chat/completions' */
  readonly path?: string;
  /**
   * Answers a request the script has no answer for, from its body: a model whose every
   * answer follows from what it was sent (test/helpers/stand-in-model.ts).
   * @default none: an empty queue answers 500
   */
  readonly respond?: (body: Record<string, unknown>) => FakeAnswer;
  /**
   * The models `GET /v1/models` (beside the chat path) lists, as OpenAI, Ollama's `/v1`,
   * llama.cpp's server and vLLM answer it (platform.openai.com/docs/api-reference/models/list).
   * @default none: the fake has no model list (404), as some servers do
   */
  readonly models?: readonly string[];
}

/** The chat completions API (and Ollama's OpenAI-compatible `/v1`). */
export function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeLlm> {
  const path = options.path ?? '/v1/chat/completions';
  const models = options.models;
  return startFake({
    path,
    respond: options.respond,
    models:
      models === undefined
        ? undefined
        : {
            path: path.replace(/\/chat\/completions$/, '/models'),
            check: (req) => openAiKeyCheck(req, options.key),
            body: () => ({
              object: 'list',
              data: models.map((id) => ({
                id,
                object: 'model',
                created: 1_700_000_000,
                owned_by: 'fake',
              })),
            }),
          },
    check: (req, body) => openAiCheck(req, body, options.key),
    error: (res, e) => {
      res.setHeader('x-request-id', 'req_fake');
      for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
      sendJson(res, e.status, {
        error: { message: e.message, type: e.type, param: null, code: e.code ?? null },
      });
    },
    json: openAiCompletion,
    stream: openAiChunks,
  });
}

/** What both APIs take as a tool's (function's) name: no dot, at most 64 characters. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function masked(key: string): string {
  return `${key.slice(0, 3)}${'*'.repeat(Math.max(0, key.length - 7))}${key.slice(-4)}`;
}

/** The 401 OpenAI answers a request without the key it wants. */
function openAiKeyCheck(req: IncomingMessage, key: string | undefined): ApiError | undefined {
  const auth = req.headers.authorization;
  if (key === undefined || auth === `Bearer ${key}`) return undefined;
  const given = auth?.replace(/^Bearer /, '') ?? '';
  return {
    status: 401,
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: `Incorrect API key provided: ${masked(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
  };
}

function openAiCheck(
  req: IncomingMessage,
  body: Record<string, unknown>,
  key: string | undefined,
): ApiError | undefined {
  const refused = openAiKeyCheck(req, key);
  if (refused) return refused;
  const bad = (message: string): ApiError => ({
    status: 400,
    type: 'invalid_request_error',
    message,
  });
  if (typeof body.model !== 'string') return bad('you must provide a model parameter');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return bad("Invalid 'messages': empty array. Expected an array with minimum length 1.");
  if (body.stream_options !== undefined && body.stream !== true)
    return bad('The stream_options parameter is only allowed when stream is enabled.');
  for (const [i, t] of ((body.tools ?? []) as { function?: { name?: unknown } }[]).entries()) {
    const name = t.function?.name;
    if (typeof name !== 'string' || !FUNCTION_NAME.test(name))
      return bad(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      );
  }
  return openAiOrder(body.messages as Record<string, unknown>[], bad);
}

/** Every tool_call answered by tool messages right after it; ids at most 40 characters. */
function openAiOrder(
  messages: readonly Record<string, unknown>[],
  bad: (m: string) => ApiError,
): ApiError | undefined {
  let open: Set<string> | undefined;
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      const id = m.tool_call_id as string;
      if (!open?.delete(id))
        return bad(
          `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${i}])`,
        );
      continue;
    }
    if (open && open.size > 0)
      return bad(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
      );
    open = undefined;
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      open = new Set();
      for (const [j, c] of (m.tool_calls as { id: string }[]).entries()) {
        if (c.id.length > 40)
          return bad(
            `Invalid 'messages[${i}].tool_calls[${j}].id': string too long. Expected a string with maximum length 40, but got a string with length ${c.id.length} instead.`,
          );
        open.add(c.id);
      }
    }
  }
  return undefined;
}

function openAiCompletion(
  body: Record<string, unknown>,
  a: Extract<FakeAnswer, { kind: 'answer' }>,
  n: number,
): unknown {
  const list = a.calls ?? [];
  const usage = a.usage ?? { input: 11, output: 7 };
  return {
    id: `chatcmpl-fake${n}`,
    object: 'chat.completion',
    created: 1_700_000_000 + n,
    model: a.model ?? body.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: a.text ?? null,
          refusal: null,
          ...(list.length > 0
            ? {
                tool_calls: list.map((c, i) => ({
                  id: c.id ?? `call_fake${n}x${i}`,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: a.stop ?? (list.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  };
}

function* openAiChunks(body: Record<string, unknown>, a: FakeAnswer, n: number): Generator<Frame> {
  const withUsage =
    (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const model = a.kind === 'answer' && a.model ? a.model : (body.model as string);
  const chunk = (choices: unknown[], usage: unknown = null) => ({
    data: JSON.stringify({
      id: `chatcmpl-fake${n}`,
      object: 'chat.completion.chunk',
      created: 1_700_000_000 + n,
      model,
      choices,
      ...(withUsage ? { usage } : {}),
    }),
  });
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  yield delta({ role: 'assistant', content: '' });
  if (a.kind === 'drop' || a.kind === 'stream_error') {
    yield delta({ content: pieces(a.text)[0] ?? '' });
    if (a.kind === 'drop') {
      yield { destroy: true };
      return;
    }
    yield {
      data: JSON.stringify({
        error: { message: a.message, type: a.type, param: null, code: null },
      }),
    };
  }
  if (a.kind !== 'answer') return;
  for (const [i, p] of pieces(a.text ?? '').entries()) {
    yield delta({ content: p });
    if (i === 0 && a.holdAfterFirst) yield { wait: a.holdAfterFirst };
  }
  const list = a.calls ?? [];
  for (const [i, c] of list.entries()) {
    const id = c.id ?? `call_fake${n}x${i}`;
    yield delta({
      tool_calls: [{ index: i, id, type: 'function', function: { name: c.name, arguments: '' } }],
    });
    for (const p of pieces(c.arguments))
      yield delta({ tool_calls: [{ index: i, function: { arguments: p } }] });
  }
  yield delta({}, a.stop ?? (list.length > 0 ? 'tool_calls' : 'stop'));
  if (withUsage) {
    const u = a.usage ?? { input: 11, output: 7 };
    yield chunk([], {
      prompt_tokens: u.input,
      completion_tokens: u.output,
      total_tokens: u.input + u.output,
    });
  }
  yield { data: '[DONE]' };
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

export interface FakeAnthropicOptions {
  /** The `x-api-key` the fake wants. */
  readonly key: string;
  /**
   * The models `GET /v1/models` lists (docs.anthropic.com/en/api/models-list: paged by
   * `limit`, 20 by default, 1 to 1000, with `has_more`, `first_id`, `last_id`).
   * @default none: 404
   */
  readonly models?: readonly string[];
}

/** The Messages API, `POST /v1/messages`. */
export function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeLlm> {
  const models = options.models;
  return startFake({
    path: '/v1/messages',
    models:
      models === undefined
        ? undefined
        : {
            path: '/v1/models',
            check: (req) => anthropicHeaderCheck(req, options.key),
            body: (query) => anthropicModelPage(models, query),
          },
    check: (req, body) => anthropicCheck(req, body, options.key),
    error: (res, e) => {
      res.setHeader('request-id', 'req_fake');
      for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
      sendJson(res, e.status, {
        type: 'error',
        error: { type: e.type, message: e.message },
        request_id: 'req_fake',
      });
    },
    json: anthropicMessage,
    stream: anthropicEvents,
  });
}

type Block = Record<string, unknown> & { type: string };

/** What every Anthropic request needs: the key, and an `anthropic-version` header. */
function anthropicHeaderCheck(req: IncomingMessage, key: string): ApiError | undefined {
  if (req.headers['x-api-key'] !== key)
    return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
  const version = req.headers['anthropic-version'];
  if (typeof version !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(version))
    return {
      status: 400,
      type: 'invalid_request_error',
      message: 'anthropic-version: header is required',
    };
  return undefined;
}

/** One page of the model list: the first `limit` (default 20) models. */
function anthropicModelPage(models: readonly string[], query: URLSearchParams): unknown {
  const limit = Math.min(1000, Math.max(1, Number(query.get('limit') ?? 20) || 20));
  const page = models.slice(0, limit);
  return {
    data: page.map((id) => ({
      type: 'model',
      id,
      display_name: id,
      created_at: '2025-01-01T00:00:00Z',
    })),
    has_more: models.length > limit,
    first_id: page[0] ?? null,
    last_id: page.at(-1) ?? null,
  };
}

function anthropicCheck(
  req: IncomingMessage,
  body: Record<string, unknown>,
  key: string,
): ApiError | undefined {
  const refused = anthropicHeaderCheck(req, key);
  if (refused) return refused;
  const bad = (message: string): ApiError => ({
    status: 400,
    type: 'invalid_request_error',
    message,
  });
  if (typeof body.model !== 'string') return bad('model: Field required');
  if (!Number.isInteger(body.max_tokens)) return bad('max_tokens: Field required');
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system))
    return bad('system: Input should be a valid string');
  for (const [i, t] of ((body.tools ?? []) as Record<string, unknown>[]).entries()) {
    if (typeof t.name !== 'string' || !FUNCTION_NAME.test(t.name))
      return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    if ((t.input_schema as { type?: unknown } | undefined)?.type !== 'object')
      return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return bad('messages: at least one message is required');
  const turns = messages as { role: string; content: string | Block[] }[];
  // the API refuses tool blocks in a request that defines no tools
  const toolBlock = (b: Block) => b.type === 'tool_use' || b.type === 'tool_result';
  const noTools = !Array.isArray(body.tools) || body.tools.length === 0;
  if (noTools && turns.some((m) => Array.isArray(m.content) && m.content.some(toolBlock)))
    return bad('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  return anthropicOrder(turns, bad);
}

/** Alternating roles from a user turn; every tool_use answered by the next user turn, results first. */
function anthropicOrder(
  messages: readonly { role: string; content: string | Block[] }[],
  bad: (m: string) => ApiError,
): ApiError | undefined {
  if (messages[0]?.role !== 'user') return bad('messages: first message must use the "user" role');
  let expected = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (i > 0 && messages[i - 1]!.role === m.role)
      return bad(
        `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row`,
      );
    const blocks: Block[] =
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (blocks.length === 0) return bad(`messages.${i}: all messages must have non-empty content`);
    let seenOther = false;
    const answered = new Set<string>();
    for (const [j, b] of blocks.entries()) {
      if (b.type === 'text' && (typeof b.text !== 'string' || b.text === ''))
        return bad(`messages.${i}.content.${j}.text: text content blocks must be non-empty`);
      if (b.type === 'tool_use' && !/^[a-zA-Z0-9_-]+$/.test(String(b.id)))
        return bad(
          `messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`,
        );
      if (b.type === 'tool_result') {
        if (seenOther)
          return bad(`messages.${i}: tool_result blocks must come first in the content`);
        if (!expected.has(String(b.tool_use_id)))
          return bad(
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        answered.add(String(b.tool_use_id));
      } else seenOther = true;
    }
    if (m.role === 'user') {
      const missing = [...expected].filter((id) => !answered.has(id));
      if (missing.length > 0)
        return bad(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`,
        );
      expected = new Set();
    } else expected = new Set(blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id)));
  }
  return undefined;
}

function anthropicBlocks(a: Extract<FakeAnswer, { kind: 'answer' }>, n: number) {
  const blocks: Block[] = a.text ? [{ type: 'text', text: a.text }] : [];
  for (const [i, c] of (a.calls ?? []).entries()) {
    blocks.push({
      type: 'tool_use',
      id: c.id ?? `toolu_fake${n}x${i}`,
      name: c.name,
      input: c.arguments,
    });
  }
  return blocks;
}

function anthropicMessage(
  body: Record<string, unknown>,
  a: Extract<FakeAnswer, { kind: 'answer' }>,
  n: number,
): unknown {
  const usage = a.usage ?? { input: 13, output: 5 };
  const content = anthropicBlocks(a, n).map((b) =>
    // non-streamed tool_use carries `input` as an object: arguments must be JSON here
    b.type === 'tool_use' ? { ...b, input: JSON.parse(b.input as string) as unknown } : b,
  );
  return {
    id: `msg_fake${n}`,
    type: 'message',
    role: 'assistant',
    model: a.model ?? body.model,
    content,
    stop_reason: a.stop ?? ((a.calls ?? []).length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function* anthropicEvents(
  body: Record<string, unknown>,
  a: FakeAnswer,
  n: number,
): Generator<Frame> {
  const ev = (event: string, data: Record<string, unknown>): Frame => ({
    event,
    data: JSON.stringify({ type: event, ...data }),
  });
  const usage = a.kind === 'answer' && a.usage ? a.usage : { input: 13, output: 5 };
  yield ev('message_start', {
    message: {
      id: `msg_fake${n}`,
      type: 'message',
      role: 'assistant',
      content: [],
      model: a.kind === 'answer' && a.model ? a.model : body.model,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  yield ev('ping', {});
  if (a.kind === 'drop' || a.kind === 'stream_error') {
    yield ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    yield ev('content_block_delta', {
      index: 0,
      delta: { type: 'text_delta', text: pieces(a.text)[0] ?? '' },
    });
    if (a.kind === 'drop') yield { destroy: true };
    else yield ev('error', { error: { type: a.type, message: a.message } });
    return;
  }
  if (a.kind !== 'answer') return;
  for (const [index, b] of anthropicBlocks(a, n).entries()) {
    if (b.type === 'text') {
      yield ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const [i, p] of pieces(b.text as string).entries()) {
        yield ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } });
        if (i === 0 && a.holdAfterFirst) yield { wait: a.holdAfterFirst };
      }
    } else {
      yield ev('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
      });
      for (const p of pieces(b.input as string))
        yield ev('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: p },
        });
    }
    yield ev('content_block_stop', { index });
  }
  const stop = a.stop ?? ((a.calls ?? []).length > 0 ? 'tool_use' : 'end_turn');
  yield ev('message_delta', {
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  yield ev('message_stop', {});
}

/** Request `i`'s body (0 first), for assertions. */
export function bodyOf(fake: FakeLlm, i: number): Record<string, unknown> {
  const b = fake.bodies[i];
  if (b === undefined)
    throw new Error(`the fake got ${fake.bodies.length} request(s), not ${i + 1}`);
  return b;
}
