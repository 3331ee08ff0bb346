import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { LlmMessage, LlmTool, LlmUsage } from './types.js';
import * as wire from './wire.js';

const FORMAT = 'the chat completions format';

/**
 * The OpenAI chat completions wire format (platform.openai.com/docs/api-reference/chat):
 * neutral messages and tools out, the parts of an answer we read back in. Answers are
 * checked against the small schemas below (only the fields read), so an OpenAI-compatible
 * server that sends more, or leaves optional fields out, still works, and one that sends
 * something else is a `bad_response`.
 */

/** First line of the content of a tool message whose call failed: OpenAI has no error flag. */
const OPENAI_ERROR_MARK = 'ERROR: this call did not succeed.';

/** System prompt first; calls on assistant messages; results as `tool` messages. */
export function openAiMessages(
  system: string,
  messages: readonly LlmMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else if (m.role === 'tool') {
      const content = m.isError ? `${OPENAI_ERROR_MARK}\n${m.content}` : m.content;
      out.push({ role: 'tool', tool_call_id: wire.wireCallId(m.callId), content });
    } else if (m.calls.length === 0) out.push({ role: 'assistant', content: m.text });
    else {
      out.push({
        role: 'assistant',
        content: m.text === '' ? null : m.text,
        tool_calls: m.calls.map((c) => ({
          id: wire.wireCallId(c.id),
          type: 'function' as const,
          function: { name: wire.functionName(c.name), arguments: c.arguments },
        })),
      });
    }
  }
  return out;
}

export function openAiTools(tools: readonly LlmTool[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function' as const,
    function: {
      name: wire.functionName(t.name),
      description: t.description,
      parameters: wire.toolParameters(t.inputSchema),
    },
  }));
}

const UsageShape = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
});

/** Ollama has been seen to send arguments as an object; JSON text is the reference. */
const ArgumentsShape = z.union([z.string(), z.record(z.string(), z.unknown())]).nullish();

const ToolCallShape = z.looseObject({
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: ArgumentsShape }),
});

const CompletionShape = z.looseObject({
  model: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullish(),
          tool_calls: z.array(ToolCallShape).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: UsageShape.nullish(),
});

const ChunkShape = z.looseObject({
  model: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        delta: z
          .looseObject({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().int().nonnegative().nullish(),
                  id: z.string().nullish(),
                  function: z
                    .looseObject({ name: z.string().nullish(), arguments: ArgumentsShape })
                    .nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: UsageShape.nullish(),
});

function usageOf(u: z.infer<typeof UsageShape> | null | undefined): LlmUsage {
  return { inputTokens: u?.prompt_tokens ?? 0, outputTokens: u?.completion_tokens ?? 0 };
}

function argumentsText(a: z.infer<typeof ArgumentsShape>): string {
  if (a === null || a === undefined) return '';
  return typeof a === 'string' ? a : JSON.stringify(a);
}

/** A non-streamed answer (`chat.completion`). */
export function parseCompletion(body: unknown): wire.ParsedAnswer {
  const c = wire.check(CompletionShape, body, 'the answer', FORMAT);
  const choice = c.choices[0]!;
  return {
    ...(c.model ? { model: c.model } : {}),
    text: choice.message.content ?? '',
    calls: (choice.message.tool_calls ?? []).map((t) => ({
      id: t.id || wire.newCallId(),
      name: t.function.name,
      arguments: argumentsText(t.function.arguments),
    })),
    usage: usageOf(c.usage),
    ...(choice.finish_reason ? { stopReason: choice.finish_reason } : {}),
  };
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Streamed `chat.completion.chunk`s -> one answer. Text deltas go to `onText` as they come;
 * tool call deltas are assembled by `index` (id and name from the first delta that has them,
 * argument fragments appended). A delta that brings a different id at a taken index starts
 * a new call (some servers number every call 0). Usage comes from the last chunk
 * (`stream_options.include_usage`), zero when the server sends none.
 */
export class ChunkAssembler {
  #model: string | undefined;
  #text = '';
  #calls: PartialCall[] = [];
  #byIndex = new Map<number, PartialCall>();
  #usage: LlmUsage = { inputTokens: 0, outputTokens: 0 };
  #stop: string | undefined;

  push(chunk: unknown, onText?: (delta: string) => void): void {
    const c = wire.check(ChunkShape, chunk, 'a stream chunk', FORMAT);
    if (c.model) this.#model = c.model;
    if (c.usage) this.#usage = usageOf(c.usage);
    for (const choice of c.choices ?? []) {
      const content = choice.delta?.content;
      if (content) {
        this.#text += content;
        onText?.(content);
      }
      for (const d of choice.delta?.tool_calls ?? []) this.#callDelta(d);
      if (choice.finish_reason) this.#stop = choice.finish_reason;
    }
  }

  #callDelta(d: {
    index?: number | null;
    id?: string | null;
    function?: { name?: string | null; arguments?: z.infer<typeof ArgumentsShape> } | null;
  }): void {
    const index = d.index ?? this.#calls.length;
    let call = this.#byIndex.get(index);
    if (!call || (d.id && call.id !== '' && d.id !== call.id)) {
      call = { id: '', name: '', arguments: '' };
      this.#calls.push(call);
      this.#byIndex.set(index, call);
    }
    if (d.id && call.id === '') call.id = d.id;
    if (d.function?.name && call.name === '') call.name = d.function.name;
    call.arguments += argumentsText(d.function?.arguments);
  }

  result(): wire.ParsedAnswer {
    const unnamed = this.#calls.find((c) => c.name === '');
    if (unnamed)
      throw new wire.WireFormatError('a streamed tool call came without a function name');
    return {
      ...(this.#model ? { model: this.#model } : {}),
      text: this.#text,
      calls: this.#calls.map((c) => ({
        id: c.id || wire.newCallId(),
        name: c.name,
        arguments: c.arguments,
      })),
      usage: this.#usage,
      ...(this.#stop ? { stopReason: this.#stop } : {}),
    };
  }
}
