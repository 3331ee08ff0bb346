import { describe, expect, test } from 'vitest';
import {
  anthropicMessages,
  anthropicTools,
  EventAssembler,
  parseMessage,
} from '../../../../src/brain/llm/anthropic-wire.js';
import type { LlmMessage } from '../../../../src/brain/llm/types.js';
import {
  ChunkAssembler,
  openAiMessages,
  openAiTools,
  parseCompletion,
} from '../../../../src/brain/llm/openai-wire.js';
import { ollamaV1 } from '../../../../src/brain/llm/openai.js';
import {
  callableOfFunction,
  offeredByFunctionName,
  toolParameters,
  wireCallId,
} from '../../../../src/brain/llm/wire.js';

const chunk = (delta: object, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('OpenAI chunks', () => {
  test('text deltas go to onText; tool call deltas are assembled by index', () => {
    const a = new ChunkAssembler();
    const deltas: string[] = [];
    const push = (c: object) => a.push(c, (d) => deltas.push(d));
    push(chunk({ role: 'assistant', content: '' }));
    push(chunk({ content: 'Let me ' }));
    push(chunk({ content: 'check.' }));
    push(
      chunk({
        tool_calls: [
          { index: 0, id: 'call_a', type: 'function', function: { name: 'calc', arguments: '' } },
        ],
      }),
    );
    push(
      chunk({
        tool_calls: [
          {
            index: 1,
            id: 'call_b',
            type: 'function',
            function: { name: 'search', arguments: '{"q"' },
          },
        ],
      }),
    );
    push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"e":' } }] }));
    push(chunk({ tool_calls: [{ index: 0, function: { arguments: '"1+1"}' } }] }));
    push(chunk({ tool_calls: [{ index: 1, function: { arguments: ':"x"}' } }] }));
    push(chunk({}, 'tool_calls'));
    push({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 9 } });

    expect(deltas).toEqual(['Let me ', 'check.']);
    expect(a.result()).toEqual({
      text: 'Let me check.',
      calls: [
        { id: 'call_a', name: 'calc', arguments: '{"e":"1+1"}' },
        { id: 'call_b', name: 'search', arguments: '{"q":"x"}' },
      ],
      usage: { inputTokens: 40, outputTokens: 9 },
      stopReason: 'tool_calls',
    });
  });

  test('a new id at a taken index starts a new call (servers that number every call 0)', () => {
    const a = new ChunkAssembler();
    a.push(
      chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'a', arguments: '{}' } }] }),
    );
    a.push(
      chunk({ tool_calls: [{ index: 0, id: 'call_2', function: { name: 'b', arguments: '{}' } }] }),
      undefined,
    );
    a.push(chunk({}, 'tool_calls'));
    expect(a.result().calls.map((c) => `${c.id}:${c.name}`)).toEqual(['call_1:a', 'call_2:b']);
  });

  test('a call without an id gets one; arguments sent as an object become JSON text', () => {
    const r = parseCompletion({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [{ function: { name: 'a', arguments: { x: 1 } } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
    expect(r.calls[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(r.calls[0]!.arguments).toBe('{"x":1}');
    expect(r.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  test('no stop reason yet: the stream has not finished', () => {
    const a = new ChunkAssembler();
    a.push(chunk({ content: 'half' }));
    expect(a.result().stopReason).toBeUndefined();
  });

  test.each([
    [{ choices: [] }, /at choices: /],
    [
      { choices: [{ message: { content: 5 } }] },
      /at choices\[0\]\.message\.content: expected string/,
    ],
    ['<html>', /the answer is not the chat completions format/],
  ])('%j is not the format', (body, message) => {
    expect(() => parseCompletion(body)).toThrow(message);
  });
});

describe('OpenAI messages', () => {
  test('system first, calls on the assistant, results as tool messages with errors marked', () => {
    const messages: LlmMessage[] = [
      { role: 'user', text: 'q' },
      { role: 'assistant', text: '', calls: [{ id: 'c1', name: 'a', arguments: '{}' }] },
      { role: 'tool', callId: 'c1', name: 'a', content: 'DATA', isError: true },
      { role: 'assistant', text: 'answer', calls: [] },
      { role: 'user', text: 'more' },
    ];
    expect(openAiMessages('SYS', messages)).toEqual([
      { role: 'system', content: 'SYS' },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'a', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ERROR: this call did not succeed.\nDATA' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'more' },
    ]);
  });
});

describe('Anthropic messages', () => {
  test('consecutive messages of one role merge; results come first in their user turn', () => {
    const messages: LlmMessage[] = [
      { role: 'user', text: 'a' },
      { role: 'user', text: 'b' },
      { role: 'assistant', text: 'x', calls: [] },
      { role: 'assistant', text: 'y', calls: [{ id: 'c1', name: 't', arguments: '{"k":1}' }] },
      { role: 'tool', callId: 'c1', name: 't', content: 'R', isError: false },
      { role: 'user', text: 'c' },
    ];
    expect(anthropicMessages(messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: 'y' },
          { type: 'tool_use', id: 'c1', name: 't', input: { k: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'R', is_error: false },
          { type: 'text', text: 'c' },
        ],
      },
    ]);
  });

  test('arguments that are not an object go as {} and the result carries a note', () => {
    const out = anthropicMessages([
      { role: 'user', text: 'q' },
      { role: 'assistant', text: '', calls: [{ id: 'c1', name: 't', arguments: '[1]' }] },
      { role: 'tool', callId: 'c1', name: 't', content: 'R', isError: true },
    ]);
    expect(out[1]!.content).toEqual([{ type: 'tool_use', id: 'c1', name: 't', input: {} }]);
    const result = (out[2]!.content as { content: string }[])[0]!.content;
    expect(result).toBe(
      'Note: this call was sent as {} because the arguments for t are JSON but not an object (got an array): "[1]"\nR',
    );
  });

  test('stream events: text deltas, tool input assembled, usage from start and delta', () => {
    const a = new EventAssembler();
    const deltas: string[] = [];
    const events = [
      {
        type: 'message_start',
        message: {
          model: 'claude-x',
          usage: { input_tokens: 20, cache_read_input_tokens: 5, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'On ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'it.' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'calc', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"e": ' },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '"2"}' },
      },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_2', name: 'noargs', input: {} },
      },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } },
    ];
    for (const e of events) a.push(e, (d) => deltas.push(d));
    expect(a.result().stopReason).toBeUndefined();
    a.push({ type: 'message_stop' });

    expect(deltas).toEqual(['On ', 'it.']);
    expect(a.result()).toEqual({
      model: 'claude-x',
      text: 'On it.',
      calls: [
        { id: 'toolu_1', name: 'calc', arguments: '{"e": "2"}' },
        { id: 'toolu_2', name: 'noargs', arguments: '{}' },
      ],
      usage: { inputTokens: 25, outputTokens: 30 },
      stopReason: 'tool_use',
    });
  });

  test('a non-streamed message: text blocks joined, tool_use input as JSON, cache tokens counted', () => {
    const r = parseMessage({
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: '...' },
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'toolu_9', name: 'calc', input: { e: '1' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 10, cache_creation_input_tokens: 3, output_tokens: 4 },
    });
    expect(r).toEqual({
      model: 'claude-x',
      text: 'Sure.',
      calls: [{ id: 'toolu_9', name: 'calc', arguments: '{"e":"1"}' }],
      usage: { inputTokens: 13, outputTokens: 4 },
      stopReason: 'tool_use',
    });
  });
});

describe('shared wire rules', () => {
  test.each([
    ['call_abc', 'call_abc'],
    ['toolu_01A09q90qw90lq917835lq9', 'toolu_01A09q90qw90lq917835lq9'],
    ['x'.repeat(40), 'x'.repeat(40)],
  ])('%s goes as it is', (id, out) => {
    expect(wireCallId(id)).toBe(out);
  });

  test('ids too long or with other characters become a stable hash', () => {
    const long = 'fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f';
    expect(wireCallId(long)).toMatch(/^call_[0-9a-f]{32}$/);
    expect(wireCallId(long)).toBe(wireCallId(long));
    expect(wireCallId('call.1')).not.toBe(wireCallId('call:1'));
  });

  test('tool parameters lose $schema and are objects', () => {
    expect(toolParameters({ $schema: 'x', properties: {} })).toEqual({
      properties: {},
      type: 'object',
    });
  });

  test.each([
    ['http://localhost:11434', 'http://localhost:11434/v1'],
    ['http://localhost:11434/', 'http://localhost:11434/v1'],
    ['http://gpu.lan:11434/v1', 'http://gpu.lan:11434/v1'],
    ['https://proxy.lan/ollama', 'https://proxy.lan/ollama/v1'],
  ])('ollama base %s -> %s', (base, v1) => {
    expect(ollamaV1(base)).toBe(v1);
  });
});

// ADR 0092: a model API's function name holds no dot; an action goes out with a `-`
describe('action names on the wire', () => {
  const tools = [
    { name: 'calculator', description: 'c', inputSchema: { type: 'object' } },
    { name: 'notes.read', description: 'r', inputSchema: { type: 'object' } },
  ];
  const offered = offeredByFunctionName(tools);

  test('go out under a name both APIs accept, in the tools and in the history', () => {
    const functions = openAiTools(tools) as unknown as { function: { name: string } }[];
    expect(functions.map((t) => t.function.name)).toEqual(['calculator', 'notes-read']);
    expect(anthropicTools(tools).map((t) => t.name)).toEqual(['calculator', 'notes-read']);
    const history: LlmMessage[] = [
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: '', calls: [{ id: 'c1', name: 'notes.read', arguments: '{}' }] },
    ];
    const [, assistant] = openAiMessages('', history) as {
      tool_calls?: { function: { name: string } }[];
    }[];
    expect(assistant?.tool_calls?.[0]?.function.name).toBe('notes-read');
    expect(JSON.stringify(anthropicMessages(history))).toContain('"name":"notes-read"');
  });

  test.each([
    ['an offered function name', 'notes-read', 'notes.read'],
    ['a one-action tool', 'calculator', 'calculator'],
    ['an action nobody offered, so the policy judges it by its name', 'notes-write', 'notes.write'],
    ['a name already dotted', 'notes.write', 'notes.write'],
    ['a name no callable has', 'rm-rf-slash', 'rm-rf-slash'],
    ['a capital', 'Notes-write', 'Notes-write'],
  ])('%s: %s reads back as %s', (_name, fn, callable) => {
    expect(callableOfFunction(fn, offered)).toBe(callable);
  });
});

// ADR 0093: a model that still says a Home Assistant tool's old name reaches the action offered
test.each([
  ['call_service', 'home_assistant.call_service'],
  ['ha_entities', 'home_assistant.entities'],
])('a model calling %s, when only the action is offered, calls %s', (called, callable) => {
  const offered = offeredByFunctionName([
    { name: 'home_assistant.call_service', description: '', inputSchema: { type: 'object' } },
    { name: 'home_assistant.entities', description: '', inputSchema: { type: 'object' } },
  ]);
  expect(callableOfFunction(called, offered)).toBe(callable);
  // and not when nothing by that name was offered
  expect(callableOfFunction(called, new Map())).toBe(called);
});
