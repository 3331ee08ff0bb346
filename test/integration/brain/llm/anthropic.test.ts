import { describe, expect, test } from 'vitest';
import { PlannerUnavailableError } from '../../../../src/brain/agent/errors.js';
import { LlmError } from '../../../../src/brain/llm/types.js';
import { closedPort } from '../../../helpers/ports.js';
import { gate } from '../../../helpers/fake-search.js';
import {
  bodyOf,
  calls,
  failure,
  reply,
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeLlm,
} from '../../../helpers/fake-llm.js';
import { waitFor } from '../../../helpers/wait.js';
import {
  ANTHROPIC_KEY,
  assistant,
  endpoint,
  llmConfig,
  plannerFor,
  PROMPT,
  request,
  tool,
  user,
} from './setup.js';

const anthropic = (fake: FakeLlm, more = {}) =>
  endpoint('anthropic', fake.url, { apiKey: ANTHROPIC_KEY, model: 'claude-test', ...more });

describe.each([
  ['not streamed', false],
  ['streamed', true],
])('Anthropic messages, %s', (_name, streamed) => {
  function streaming() {
    const deltas: string[] = [];
    return { deltas, more: streamed ? { onText: (d: string) => void deltas.push(d) } : {} };
  }

  test('a text reply: system apart, tools with input_schema, x-api-key and anthropic-version', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(reply('Hello from Claude.', { usage: { input: 210, output: 12 } }));
    const { planner } = plannerFor(llmConfig([anthropic(fake, { temperature: 1.5 })]));
    const s = streaming();

    const step = await planner.plan(request([user('hello')], s.more));

    expect(step).toMatchObject({ type: 'reply', text: 'Hello from Claude.' });
    expect(step.round).toMatchObject({
      provider: 'anthropic',
      model: 'claude-test',
      inputTokens: 210,
      outputTokens: 12,
    });
    if (streamed) expect(s.deltas.join('')).toBe('Hello from Claude.');
    const body = bodyOf(fake, 0);
    expect(body).toMatchObject({
      model: 'claude-test',
      max_tokens: 256,
      system: PROMPT,
      temperature: 1,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    });
    expect(body.tools).toEqual([
      {
        name: 'calculator',
        description: 'Evaluates an arithmetic expression.',
        input_schema: {
          type: 'object',
          properties: { expression: { type: 'string' } },
          required: ['expression'],
          additionalProperties: false,
        },
      },
      expect.objectContaining({ name: 'web_search' }),
    ]);
    expect(body.stream === true).toBe(streamed);
    const headers = fake.requests[0]!.headers;
    expect(headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(headers.authorization).toBeUndefined();
    expect(headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test('one and two tool_use blocks become planned calls', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(
      calls([{ id: 'toolu_01', name: 'calculator', arguments: '{"expression":"6*7"}' }], {
        text: 'Computing.',
      }),
      calls([
        { id: 'toolu_02', name: 'web_search', arguments: '{"query":"weather"}' },
        { id: 'toolu_03', name: 'calculator', arguments: '{"expression":"1+1"}' },
      ]),
    );
    const { planner } = plannerFor(llmConfig([anthropic(fake)]));

    const one = await planner.plan(request([user('6*7?')], streaming().more));
    const two = await planner.plan(request([user('both')], streaming().more));

    expect(one).toMatchObject({
      type: 'tool_calls',
      text: 'Computing.',
      calls: [{ id: 'toolu_01', tool: 'calculator', input: { expression: '6*7' } }],
    });
    expect(two.type === 'tool_calls' && two.calls).toEqual([
      { id: 'toolu_02', tool: 'web_search', input: { query: 'weather' } },
      { id: 'toolu_03', tool: 'calculator', input: { expression: '1+1' } },
    ]);
  });

  test('tool results go back as tool_result blocks with is_error, roles alternating', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(reply('Here you go.'));
    const { planner } = plannerFor(llmConfig([anthropic(fake)]));
    const history = [
      user('search and compute'),
      assistant('On it.'),
      tool({ name: 'calculator', call_id: 'toolu_a', input: { expression: '2+2' }, result: 4 }),
      tool({
        name: 'web_search',
        call_id: 'toolu_b',
        input: { query: 'x' },
        outcome: 'failed',
        error: { code: 'backend_error', message: 'SearXNG answered 502' },
      }),
    ];

    await planner.plan(request(history, streaming().more));

    const messages = bodyOf(fake, 0).messages as {
      role: string;
      content: Record<string, unknown>[];
    }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content).toEqual([
      { type: 'text', text: 'On it.' },
      { type: 'tool_use', id: 'toolu_a', name: 'calculator', input: { expression: '2+2' } },
      { type: 'tool_use', id: 'toolu_b', name: 'web_search', input: { query: 'x' } },
    ]);
    expect(messages[2]!.content).toMatchObject([
      { type: 'tool_result', tool_use_id: 'toolu_a', is_error: false },
      { type: 'tool_result', tool_use_id: 'toolu_b', is_error: true },
    ]);
    expect(messages[2]!.content[1]!.content).toContain('"error":{"code":"backend_error"');
  });

  test('a request that offers no tools carries the results as text (the API refuses tool blocks without tools)', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(reply('It is 4.'));
    const { planner } = plannerFor(llmConfig([anthropic(fake)]));
    const history = [
      user('compute'),
      tool({ name: 'calculator', call_id: 'toolu_a', input: { expression: '2+2' }, result: 4 }),
    ];

    const step = await planner.plan({ ...request(history, streaming().more), tools: [] });

    expect(step).toMatchObject({ type: 'reply', text: 'It is 4.' });
    const body = bodyOf(fake, 0);
    expect(body.tools).toBeUndefined();
    const messages = body.messages as { role: string; content: Record<string, unknown>[] }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages.flatMap((m) => m.content.map((b) => b.type))).toEqual(['text', 'text', 'text']);
    expect(messages[2]!.content[0]!.text).toContain(
      '{"tool":"calculator","outcome":"ok","result":4}',
    );
  });

  test('a result followed by a new user message is one user turn, results first', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(reply('ok'));
    const { planner } = plannerFor(llmConfig([anthropic(fake)]));
    const history = [
      user('unlock the door'),
      tool({ name: 'call_service', call_id: 'toolu_x', outcome: 'confirmation_required' }),
      user('never mind, what time is it?'),
    ];

    await planner.plan(request(history, streaming().more));

    const messages = bodyOf(fake, 0).messages as {
      role: string;
      content: Record<string, unknown>[];
    }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
  });

  test('a 429 with retry-after and a 529 overloaded are retried, the waits honoured', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(
      failure(429, {
        headers: { 'retry-after': '3' },
        message: 'Number of request tokens has exceeded your per-minute rate limit',
      }),
      failure(529, { message: 'Overloaded' }),
      reply('made it'),
    );
    const { planner, seen } = plannerFor(llmConfig([anthropic(fake)]));

    const step = await planner.plan(request([user('hi')], streaming().more));

    expect(step).toMatchObject({ type: 'reply', text: 'made it' });
    expect(seen.waits).toEqual([3000, 500]);
    expect(step.round!.attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['rate_limited', 429],
      ['server', 529],
      ['ok', undefined],
    ]);
    expect(step.round!.attempts[1]!.message).toBe(
      `anthropic at 127.0.0.1:${fake.port}: 529 overloaded: Overloaded`,
    );
  });

  test('a wrong key fails over to the fallback; nothing shows the key', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    await using ollama = await startFakeOpenAi();
    ollama.script(reply('local answer'));
    const wrong = 'sk-ant-wrong-5e6f7a8b9c0d1e2fQZXW';
    const { planner, seen } = plannerFor(
      llmConfig([
        anthropic(fake, { apiKey: wrong }),
        endpoint('ollama', ollama.url, { model: 'llama3.1' }),
      ]),
    );

    const step = await planner.plan(request([user('hi')], streaming().more));

    expect(step).toMatchObject({ type: 'reply', text: 'local answer' });
    expect(step.round!.attempts.map((a) => `${a.provider}:${a.outcome}:${a.status ?? ''}`)).toEqual(
      ['anthropic:auth:401', 'ollama:ok:'],
    );
    expect(seen.waits).toEqual([]);
    expect(JSON.stringify(step.round)).not.toContain('QZXW');
  });

  test('when nothing answers, the message lists each provider and why', async () => {
    const port = await closedPort();
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(failure(400, { message: `model: claude-test not found for key ${ANTHROPIC_KEY}` }));
    const { planner } = plannerFor(
      llmConfig([
        anthropic(fake),
        endpoint('openai', `http://127.0.0.1:${port}/v1`, { model: 'gpt-x' }),
      ]),
    );

    const err = (await planner
      .plan(request([user('hi')], streaming().more))
      .catch((e: unknown) => e)) as PlannerUnavailableError;

    expect(err).toBeInstanceOf(PlannerUnavailableError);
    expect(err.message).toBe(
      `no model could be reached: anthropic (claude-test at 127.0.0.1:${fake.port}) 400 bad request; ` +
        `openai (gpt-x at 127.0.0.1:${port}) connection refused`,
    );
    expect(err.attempts[0]!.message).toContain('not found for key [redacted]');
    expect(JSON.stringify(err.attempts)).not.toContain(ANTHROPIC_KEY);
  });

  test('an abort stops at once', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    const held = gate();
    fake.script(
      streamed ? reply('one two three four', { holdAfterFirst: held.wait }) : { kind: 'hang' },
    );
    const { planner, seen } = plannerFor(llmConfig([anthropic(fake)]));
    const controller = new AbortController();
    const onText = () => controller.abort();

    const planned = planner.plan(
      request([user('hi')], { signal: controller.signal, ...(streamed ? { onText } : {}) }),
    );
    if (!streamed) {
      await waitFor(() => fake.bodies.length === 1, 'the request to arrive');
      controller.abort();
    }
    const err = await planned.catch((e: unknown) => e);

    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).kind).toBe('aborted');
    expect(seen.attempts.map((a) => a.outcome)).toEqual(['aborted']);
    await waitFor(() => fake.abandoned === 1, 'the fake to see the client leave');
    held.open();
  });
});

describe('Anthropic messages, streaming only', () => {
  test('input_json_delta that is not JSON (cut at max_tokens) is a call with a problem', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(
      calls([{ id: 'toolu_c', name: 'web_search', arguments: '{"query": "nats jet' }], {
        stop: 'max_tokens',
      }),
    );
    const { planner } = plannerFor(llmConfig([anthropic(fake)]));

    const step = await planner.plan(request([user('hi')], { onText: () => undefined }));

    if (step.type !== 'tool_calls') throw new Error('expected calls');
    expect(step.calls[0]).toMatchObject({ id: 'toolu_c', tool: 'web_search' });
    expect(step.calls[0]!.problem).toMatch(
      /not valid JSON .*"\{\\"query\\": \\"nats jet" \(the answer was cut at llm.max_tokens\)/,
    );
  });

  test('an overloaded_error event mid-stream is a server error, retried', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script(
      { kind: 'stream_error', text: 'Hel', type: 'overloaded_error', message: 'Overloaded' },
      reply('Hello'),
    );
    const { planner, seen } = plannerFor(llmConfig([anthropic(fake)]));

    const step = await planner.plan(request([user('hi')], { onText: () => undefined }));

    expect(step).toMatchObject({ type: 'reply', text: 'Hello' });
    expect(step.round!.attempts.map((a) => a.outcome)).toEqual(['server', 'ok']);
    expect(step.round!.attempts[0]!.message).toContain('overloaded mid-answer: Overloaded');
    expect(seen.waits).toEqual([250]);
  });

  test('a stream cut before message_stop is a server error, retried', async () => {
    await using fake = await startFakeAnthropic({ key: ANTHROPIC_KEY });
    fake.script({ kind: 'drop', text: 'partial' }, reply('whole'));
    const { planner } = plannerFor(llmConfig([anthropic(fake)]));

    const step = await planner.plan(request([user('hi')], { onText: () => undefined }));

    expect(step).toMatchObject({ type: 'reply', text: 'whole' });
    expect(step.round!.attempts.map((a) => a.outcome)).toEqual(['server', 'ok']);
  });
});
