import { z } from 'zod';

/**
 * The OpenAI-compatible face of the brain (`GET /v1/models`, `POST /v1/chat/completions`), as
 * shapes, written from OpenAI's chat completions API reference. Requests are read loosely
 * (clients send many fields; unknown ones are ignored), then refused field by field where
 * honouring them would let a client act as CAESAR's system prompt or its tools
 * (`chatCompletionRequestSchema`). docs/openai-compat.md documents both.
 */

/** The one model the brain answers as, whatever `model` a request names. */
export const OPENAI_MODEL_ID = 'caesar';
/** `created` of that model: fixed (2026-01-01T00:00:00Z), so the list never changes. */
export const OPENAI_MODEL_CREATED = 1_767_225_600;
/** Most messages one request may carry (the body limit bounds their size). */
const MAX_COMPLETION_MESSAGES = 1000;

/** Roles a request may use; the others are refused with the reason below. */
const REFUSED_ROLES: Readonly<Record<string, string>> = {
  system: 'CAESAR keeps its own system prompt',
  developer: 'CAESAR keeps its own system prompt',
  tool: 'tools run inside CAESAR, so a client cannot supply tool results',
  function: 'tools run inside CAESAR, so a client cannot supply tool results',
};

const ContentPartSchema = z.looseObject({ type: z.string(), text: z.unknown().optional() });

const MessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(ContentPartSchema)]).nullish(),
  tool_calls: z.unknown().optional(),
  function_call: z.unknown().optional(),
});

const positiveInt = z.number().int().positive().nullish();

/** The fields the brain reads; everything else in the body passes through unread. */
const ChatCompletionRequestShape = z.looseObject({
  model: z.string().min(1),
  messages: z
    .array(MessageSchema)
    .min(1, 'at least one message')
    .max(MAX_COMPLETION_MESSAGES, `at most ${MAX_COMPLETION_MESSAGES} messages`),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: positiveInt,
  max_completion_tokens: positiveInt,
  n: positiveInt,
  user: z.string().nullish(),
  tools: z.unknown().optional(),
  functions: z.unknown().optional(),
  tool_choice: z.unknown().optional(),
  function_call: z.unknown().optional(),
});
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequestShape>;
type ChatCompletionMessage = ChatCompletionRequest['messages'][number];

type Issue = (path: PropertyKey[], message: string) => void;

/** A field a client set to something: neither absent, `null` nor an empty list. */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

function refuseClientTools(req: ChatCompletionRequest, issue: Issue): void {
  const why = 'refused: tools run inside CAESAR under its policy, not in the client';
  if (isSet(req.tools)) issue(['tools'], why);
  if (isSet(req.functions)) issue(['functions'], why);
  for (const key of ['tool_choice', 'function_call'] as const) {
    const v = req[key];
    if (isSet(v) && v !== 'none' && v !== 'auto') issue([key], why);
  }
  if (typeof req.n === 'number' && req.n > 1) {
    issue(['n'], `refused: CAESAR gives one answer per request (got n = ${req.n})`);
  }
}

function checkMessage(m: ChatCompletionMessage, i: number, maxChars: number, issue: Issue): void {
  const at = (...rest: PropertyKey[]) => ['messages', i, ...rest];
  const refused = REFUSED_ROLES[m.role];
  if (refused !== undefined) {
    issue(at('role'), `'${m.role}' messages are refused: ${refused}`);
    return;
  }
  if (m.role !== 'user' && m.role !== 'assistant') {
    issue(at('role'), `expected 'user' or 'assistant' (got '${m.role.slice(0, 32)}')`);
    return;
  }
  if (isSet(m.tool_calls) || isSet(m.function_call)) {
    const key = isSet(m.tool_calls) ? 'tool_calls' : 'function_call';
    issue(at(key), 'refused: tools run inside CAESAR, so a client cannot supply tool calls');
  }
  if (m.content === null || m.content === undefined) {
    issue(at('content'), 'expected a string or an array of text parts');
    return;
  }
  if (Array.isArray(m.content)) {
    const bad = m.content.findIndex((p) => p.type !== 'text' || typeof p.text !== 'string');
    const part = m.content[bad];
    if (part !== undefined) {
      const msg =
        part.type === 'text'
          ? 'expected a string `text`'
          : `'${part.type.slice(0, 32)}' content parts are refused: only text is supported`;
      issue(at('content', bad, part.type === 'text' ? 'text' : 'type'), msg);
      return;
    }
  }
  const length = messageText(m).length;
  if (m.role === 'user' && length > maxChars) {
    issue(at('content'), `too long: at most ${maxChars} characters (got ${length})`);
  }
}

/**
 * `POST /v1/chat/completions` bodies, with the brain's refusals: client tools, `n` > 1,
 * `system`/`developer`/`tool`/`function` messages, non-text content, a user message over
 * `maxChars`, and a conversation that does not end with the user's message. Each refusal is
 * an issue at the field's path, so the error names the field.
 */
export function chatCompletionRequestSchema(maxChars: number) {
  return ChatCompletionRequestShape.superRefine((req, ctx) => {
    const issue: Issue = (path, message) => ctx.addIssue({ code: 'custom', path, message });
    refuseClientTools(req, issue);
    req.messages.forEach((m, i) => checkMessage(m, i, maxChars, issue));
    const last = req.messages.length - 1;
    const lastMessage = req.messages[last];
    if (lastMessage?.role === 'assistant') {
      issue(['messages', last, 'role'], "the last message must be the user's message to answer");
    } else if (lastMessage?.role === 'user' && messageText(lastMessage).trim() === '') {
      issue(['messages', last, 'content'], 'the message to answer is empty');
    }
  });
}

/** The text of a message that passed the schema: its string, or its text parts joined. */
export function messageText(m: ChatCompletionMessage): string {
  if (typeof m.content === 'string') return m.content;
  return (m.content ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');
}

const CompletionUsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type CompletionUsage = z.infer<typeof CompletionUsageSchema>;

/**
 * What every answer object carries, whole or streamed: the id, `object` (which kind), when,
 * the model, and `choices` each with its `index`, `logprobs` and the kind's own fields.
 */
function completionFields<O extends string, C extends Record<string, z.ZodType>>(
  object: O,
  choice: C,
) {
  return {
    id: z.string().startsWith('chatcmpl-'),
    object: z.literal(object),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(z.object({ index: z.number().int(), logprobs: z.null(), ...choice })),
  };
}

/** The non-streamed answer (`object: "chat.completion"`). */
export const ChatCompletionSchema = z.object({
  ...completionFields('chat.completion', {
    message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
    finish_reason: z.literal('stop'),
  }),
  usage: CompletionUsageSchema,
});
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

/** One `data:` event of a streamed answer (`object: "chat.completion.chunk"`). */
export const ChatCompletionChunkSchema = z.object({
  ...completionFields('chat.completion.chunk', {
    delta: z.object({
      role: z.literal('assistant').optional(),
      content: z.string().optional(),
    }),
    finish_reason: z.literal('stop').nullable(),
  }),
  /** Present only with `stream_options.include_usage`: null but on the last chunk. */
  usage: CompletionUsageSchema.nullable().optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

const ModelSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
});

/** `GET /v1/models`. */
export const ModelListSchema = z.object({
  object: z.literal('list'),
  data: z.array(ModelSchema),
});
export type ModelList = z.infer<typeof ModelListSchema>;

/** OpenAI's error body, on every non-2xx answer of these routes and in a failed stream. */
export const OpenAiErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    /** `invalid_request_error`, `authentication_error`, `permission_error`, ... */
    type: z.string(),
    /** The request field at fault (`messages[0].role`), when one is. */
    param: z.string().nullable(),
    /** CAESAR's error code (docs/api.md, "Errors"). */
    code: z.string().nullable(),
  }),
});
export type OpenAiError = z.infer<typeof OpenAiErrorSchema>;
