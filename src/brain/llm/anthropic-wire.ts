import type {
  ContentBlockParam,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { z } from 'zod';
import { parseCallArguments } from './arguments.js';
import type { LlmMessage, LlmTool, LlmToolCall, LlmUsage } from './types.js';
import * as wire from './wire.js';

const FORMAT = 'the Messages API format';

/**
 * Anthropic's Messages API wire format (docs.anthropic.com, "Messages"): the system prompt
 * travels apart; an assistant's calls are `tool_use` blocks; results are `tool_result`
 * blocks (with `is_error`) in the next user message; roles alternate, so consecutive
 * messages of one role are merged into one.
 */

/** Neutral messages -> alternating Messages API turns. */
export function anthropicMessages(messages: readonly LlmMessage[]): MessageParam[] {
  const notes = new Map<string, string>();
  const out: MessageParam[] = [];
  const add = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user')
      add('user', [{ type: 'text', text: m.text === '' ? '(empty)' : m.text }]);
    else if (m.role === 'assistant') add('assistant', assistantBlocks(m.text, m.calls, notes));
    else {
      const id = wire.wireCallId(m.callId);
      const note = notes.get(id);
      const content = note === undefined ? m.content : `${note}\n${m.content}`;
      add('user', [{ type: 'tool_result', tool_use_id: id, content, is_error: m.isError }]);
    }
  }
  return out;
}

/**
 * Text (when any), then one `tool_use` per call. `input` must be an object: arguments that
 * are not one go as `{}`, and the call's result carries a note saying what they were.
 */
function assistantBlocks(
  text: string,
  calls: readonly LlmToolCall[],
  notes: Map<string, string>,
): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = text.trim() === '' ? [] : [{ type: 'text', text }];
  for (const c of calls) {
    const id = wire.wireCallId(c.id);
    const parsed = parseCallArguments(c.name, c.arguments);
    if ('problem' in parsed)
      notes.set(id, `Note: this call was sent as {} because ${parsed.problem}`);
    blocks.push({
      type: 'tool_use',
      id,
      name: wire.functionName(c.name),
      input: 'input' in parsed ? parsed.input : {},
    });
  }
  return blocks;
}

export function anthropicTools(tools: readonly LlmTool[]): Tool[] {
  return tools.map((t) => ({
    name: wire.functionName(t.name),
    description: t.description,
    input_schema: wire.toolParameters(t.inputSchema),
  }));
}

const UsageShape = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});
type Usage = z.infer<typeof UsageShape>;

const BlockShape = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  id: z.string().nullish(),
  name: z.string().nullish(),
  input: z.unknown().optional(),
});

const MessageShape = z.looseObject({
  model: z.string().nullish(),
  content: z.array(BlockShape),
  stop_reason: z.string().nullish(),
  usage: UsageShape.nullish(),
});

/** Input tokens are all of them: fresh, written to the cache and read from it. */
function inputTokens(u: Usage | null | undefined): number | undefined {
  if (!u || typeof u.input_tokens !== 'number') return undefined;
  return u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
}

function toolCall(b: z.infer<typeof BlockShape>, json: string | undefined): LlmToolCall {
  if (!b.name) throw new wire.WireFormatError('a tool_use block came without a name');
  const args = json !== undefined && json !== '' ? json : JSON.stringify(b.input ?? {});
  return { id: b.id || wire.newCallId(), name: b.name, arguments: args };
}

/** A non-streamed answer (a `message`). */
export function parseMessage(body: unknown): wire.ParsedAnswer {
  const m = wire.check(MessageShape, body, 'the answer', FORMAT);
  return {
    ...(m.model ? { model: m.model } : {}),
    text: m.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join(''),
    calls: m.content.filter((b) => b.type === 'tool_use').map((b) => toolCall(b, undefined)),
    usage: { inputTokens: inputTokens(m.usage) ?? 0, outputTokens: m.usage?.output_tokens ?? 0 },
    ...(m.stop_reason ? { stopReason: m.stop_reason } : {}),
  };
}

const EventShape = z.looseObject({
  type: z.string(),
  index: z.number().int().nonnegative().nullish(),
  message: z.looseObject({ model: z.string().nullish(), usage: UsageShape.nullish() }).nullish(),
  content_block: BlockShape.nullish(),
  delta: z
    .looseObject({
      type: z.string().nullish(),
      text: z.string().nullish(),
      partial_json: z.string().nullish(),
      stop_reason: z.string().nullish(),
    })
    .nullish(),
  usage: UsageShape.nullish(),
});

/**
 * Stream events -> one answer: `message_start` (model, input tokens), `content_block_start`
 * / `_delta` (`text_delta` to `onText`, `input_json_delta` assembled per block) / `_stop`,
 * `message_delta` (stop reason, output tokens; input tokens when the server counts them
 * there), `message_stop`. Unknown events and block types (thinking) are skipped.
 */
export class EventAssembler {
  #model: string | undefined;
  #blocks = new Map<number, { block: z.infer<typeof BlockShape>; text: string; json: string }>();
  #usage: { input?: number; output: number } = { output: 0 };
  #stop: string | undefined;
  #stopped = false;

  push(event: unknown, onText?: (delta: string) => void): void {
    const e = wire.check(EventShape, event, 'a stream event', FORMAT);
    if (e.type === 'message_start') {
      if (e.message?.model) this.#model = e.message.model;
      this.#addUsage(e.message?.usage);
    } else if (e.type === 'content_block_start' && e.content_block) {
      const text = e.content_block.text ?? '';
      this.#blocks.set(e.index ?? this.#blocks.size, { block: e.content_block, text, json: '' });
      if (e.content_block.type === 'text' && text !== '') onText?.(text);
    } else if (e.type === 'content_block_delta') this.#delta(e, onText);
    else if (e.type === 'message_delta') {
      if (e.delta?.stop_reason) this.#stop = e.delta.stop_reason;
      this.#addUsage(e.usage);
    } else if (e.type === 'message_stop') this.#stopped = true;
  }

  #delta(e: z.infer<typeof EventShape>, onText?: (delta: string) => void): void {
    const open = this.#blocks.get(e.index ?? -1);
    if (!open)
      throw new wire.WireFormatError(
        `a content_block_delta for block ${e.index} that never started`,
      );
    if (e.delta?.type === 'text_delta' && e.delta.text) {
      open.text += e.delta.text;
      onText?.(e.delta.text);
    } else if (e.delta?.type === 'input_json_delta' && e.delta.partial_json) {
      open.json += e.delta.partial_json;
    }
  }

  #addUsage(u: Usage | null | undefined): void {
    const input = inputTokens(u);
    if (input !== undefined) this.#usage.input = input;
    if (typeof u?.output_tokens === 'number') this.#usage.output = u.output_tokens;
  }

  /** Undefined `stopReason` when the stream ended before `message_stop`. */
  result(): wire.ParsedAnswer {
    const blocks = [...this.#blocks.entries()].sort(([a], [b]) => a - b).map(([, v]) => v);
    const usage: LlmUsage = {
      inputTokens: this.#usage.input ?? 0,
      outputTokens: this.#usage.output,
    };
    return {
      ...(this.#model ? { model: this.#model } : {}),
      text: blocks.map((b) => (b.block.type === 'text' ? b.text : '')).join(''),
      calls: blocks
        .filter((b) => b.block.type === 'tool_use')
        .map((b) => toolCall(b.block, b.json)),
      usage,
      ...(this.#stopped ? { stopReason: this.#stop ?? 'end_turn' } : {}),
    };
  }
}
