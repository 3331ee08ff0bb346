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
  startFakeOpenAi,
  type FakeLlm,
} from '../../../helpers/fake-llm.js';
import { waitFor } from '../../../helpers/wait.js';
import {
  assistant,
  endpoint,
  llmConfig,
  OPENAI_KEY,
  plannerFor,
  PROMPT,
  request,
  tool,
  user,
} from './setup.js';

const openai = (fake: FakeLlm, more = {}) =>
  endpoint('openai', `${fake.url}/v1`, { apiKey: OPENAI_KEY, model: 'gpt-test', ...more });

describe.each([
  ['not streamed', false],
  ['streamed', true],
])('OpenAI chat completions, %s', (_name, streamed) => {
  /** The request's onText (streamed) and what it was handed. */
  function streaming() {
    const deltas: string[] = [];
    return { deltas, more: streamed ? { onText: (d: string) => void deltas.push(d) } : {} };
  }

  test('a text reply, with the system prompt, the transcript and the tools offered', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(reply('17 times 23 is 391.', { usage: { input: 120, output: 9 } }));
    const { planner } = plannerFor(llmConfig([openai(fake)]));
    const s = streaming();

    const step = await planner.plan(request([user('what is 17 * 23')], s.more));

    expect(step).toMatchObject({ type: 'reply', text: '17 times 23 is 391.' });
    expect(step.round).toMatchObject({
      provider: 'openai',
      model: 'gpt-test',
      inputTokens: 120,
      outputTokens: 9,
      attempts: [{ provider: 'openai', model: 'gpt-test', outcome: 'ok' }],
    });
    if (streamed) expect(s.deltas.join('')).toBe('17 times 23 is 391.');
    if (streamed) expect(s.deltas.length).toBeGreaterThan(1);
    const body = bodyOf(fake, 0);
    expect(body).toMatchObject({
      model: 'gpt-test',
      max_tokens: 256,
      tool_choice: 'auto',
      messages: [
        { role: 'system', content: PROMPT },
        { role: 'user', content: 'what is 17 * 23' },
      ],
    });
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.stream === true).toBe(streamed);
    if (streamed) expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'calculator',
          description: 'Evaluates an arithmetic expression.',
          parameters: {
            type: 'object',
            properties: { expression: { type: 'string' } },
            required: ['expression'],
            additionalProperties: false,
          },
        },
      },
      expect.objectContaining({
        type: 'function',
        function: expect.objectContaining({ name: 'web_search' }),
      }),
    ]);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  test('a single tool call becomes a planned call with its parsed input', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(
      calls([{ id: 'call_abc', name: 'calculator', arguments: '{"expression":"17*23"}' }], {
        text: 'Let me compute that.',
      }),
    );
    const { planner } = plannerFor(llmConfig([openai(fake)]));

    const step = await planner.plan(request([user('what is 17 * 23')], streaming().more));

    expect(step).toMatchObject({
      type: 'tool_calls',
      text: 'Let me compute that.',
      calls: [{ id: 'call_abc', tool: 'calculator', input: { expression: '17*23' } }],
    });
  });

  test('two parallel calls in one answer, in order, unknown tool names kept', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(
      calls([
        { id: 'call_1', name: 'web_search', arguments: '{"query":"nats"}' },
        { id: 'call_2', name: 'no_such_tool', arguments: '{}' },
      ]),
    );
    const { planner } = plannerFor(llmConfig([openai(fake)]));

    const step = await planner.plan(request([user('search')], streaming().more));

    expect(step.type === 'tool_calls' && step.calls).toEqual([
      { id: 'call_1', tool: 'web_search', input: { query: 'nats' } },
      { id: 'call_2', tool: 'no_such_tool', input: {} },
    ]);
  });

  test('malformed arguments are a planned call with a problem that shows them', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(
      calls([
        { id: 'call_bad', name: 'calculator', arguments: '{"expression": "1+' },
        { id: 'call_arr', name: 'calculator', arguments: '[1,2]' },
      ]),
    );
    const { planner } = plannerFor(llmConfig([openai(fake)]));

    const step = await planner.plan(request([user('x')], streaming().more));

    if (step.type !== 'tool_calls') throw new Error('expected calls');
    expect(step.calls[0]).toMatchObject({ id: 'call_bad', tool: 'calculator' });
    expect(step.calls[0]!.input).toBeUndefined();
    expect(step.calls[0]!.problem).toMatch(/not valid JSON .*: "\{\\"expression\\": \\"1\+"/);
    expect(step.calls[1]!.problem).toMatch(/JSON but not an object \(got an array\): "\[1,2\]"/);
  });

  test('tool results go back as tool messages under their call ids, errors marked', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(reply('Done.'));
    const { planner } = plannerFor(llmConfig([openai(fake)]));
    const history = [
      user('compute and search'),
      assistant('Working on it.'),
      tool({ name: 'calculator', call_id: 'call_1', input: { expression: '2+2' }, result: 4 }),
      tool({
        name: 'web_search',
        call_id: 'call_2',
        input: { query: 'x' },
        outcome: 'denied',
        error: { code: 'denied', message: 'web_search is not in policy.yaml' },
      }),
    ];

    await planner.plan(request(history, streaming().more));

    const messages = bodyOf(fake, 0).messages as Record<string, unknown>[];
    expect(messages.slice(1, 3)).toEqual([
      { role: 'user', content: 'compute and search' },
      {
        role: 'assistant',
        content: 'Working on it.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'calculator', arguments: '{"expression":"2+2"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'web_search', arguments: '{"query":"x"}' },
          },
        ],
      },
    ]);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(messages[3]!.content).not.toMatch(/^ERROR/);
    expect(messages[3]!.content).toContain('{"tool":"calculator","outcome":"ok","result":4}');
    expect(messages[4]).toMatchObject({ role: 'tool', tool_call_id: 'call_2' });
    expect(messages[4]!.content).toMatch(/^ERROR: this call did not succeed\./);
    expect(messages[4]!.content).toContain('"outcome":"denied"');
    expect(messages).toHaveLength(5);
  });

  test('a call a local intent rule made goes back with a synthetic id within 40 characters', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(reply('ok'));
    const { planner } = plannerFor(llmConfig([openai(fake)]));
    const decision = '0190b1c2-d3e4-7f00-8a1b-2c3d4e5f6a7b';
    const history = [
      user('turn on the kitchen light'),
      tool({ name: 'call_service', decision_id: decision, input: { domain: 'light' } }),
      assistant('The kitchen light is on.'),
      user('thanks, and what is 2+2?'),
    ];

    await planner.plan(request(history, streaming().more));

    const messages = bodyOf(fake, 0).messages as { tool_calls?: { id: string }[] }[];
    expect(messages[2]!.tool_calls![0]!.id).toBe('intent_0190b1c2d3e47f008a1b2c3d4e5f6a7b');
  });

  test('a 429 with Retry-After waits as asked, then the retry answers', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(
      failure(429, {
        headers: { 'retry-after': '2' },
        code: 'rate_limit_exceeded',
        message: 'Rate limit reached',
      }),
      failure(429, { headers: { 'retry-after-ms': '1500', 'retry-after': '9' } }),
      reply('fine'),
    );
    const { planner, seen } = plannerFor(llmConfig([openai(fake)]));

    const step = await planner.plan(request([user('hi')], streaming().more));

    expect(step).toMatchObject({ type: 'reply', text: 'fine' });
    expect(seen.waits).toEqual([2000, 1500]);
    expect(step.round!.attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['rate_limited', 429],
      ['rate_limited', 429],
      ['ok', undefined],
    ]);
    expect(step.round!.attempts[0]!.message).toBe(
      'openai at 127.0.0.1:' +
        fake.port +
        ': 429 rate limited (retry after 2 s): Rate limit reached',
    );
  });

  test('a 500 is retried after a jittered backoff', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(failure(500, { type: 'server_error' }), failure(502), reply('back'));
    const { planner, seen } = plannerFor(llmConfig([openai(fake)]));

    const step = await planner.plan(request([user('hi')], streaming().more));

    expect(step).toMatchObject({ type: 'reply', text: 'back' });
    // full jitter with random 0.5: half of 500 ms, then half of 1000 ms
    expect(seen.waits).toEqual([250, 500]);
    expect(seen.attempts.map((a) => [a.outcome, a.retry])).toEqual([
      ['server', false],
      ['server', true],
      ['ok', true],
    ]);
  });

  test('an insufficient_quota 429 is not retried', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(
      failure(429, {
        code: 'insufficient_quota',
        type: 'insufficient_quota',
        message: 'You exceeded your current quota',
      }),
    );
    const { planner, seen } = plannerFor(llmConfig([openai(fake)]));

    const err = await planner
      .plan(request([user('hi')], streaming().more))
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(PlannerUnavailableError);
    expect(seen.waits).toEqual([]);
    expect((err as PlannerUnavailableError).message).toBe(
      `no model could be reached: openai (gpt-test at 127.0.0.1:${fake.port}) 429 quota exhausted`,
    );
  });

  test('a primary whose port is closed fails over to the working fallback', async () => {
    const port = await closedPort();
    await using fake = await startFakeOpenAi();
    fake.script(reply('from the fallback'));
    const { planner, seen } = plannerFor(
      llmConfig([
        endpoint('openai', `http://127.0.0.1:${port}/v1`, {
          apiKey: OPENAI_KEY,
          model: 'gpt-test',
        }),
        endpoint('ollama', fake.url, { model: 'llama3.1' }),
      ]),
    );

    const step = await planner.plan(request([user('hi')], streaming().more));

    expect(step).toMatchObject({ type: 'reply', text: 'from the fallback' });
    expect(step.round).toMatchObject({ provider: 'ollama', model: 'llama3.1' });
    expect(step.round!.attempts.map((a) => `${a.provider}:${a.outcome}`)).toEqual([
      'openai:connect',
      'ollama:ok',
    ]);
    expect(seen.attempts.map((a) => a.failover)).toEqual([false, true]);
    expect(seen.waits).toEqual([]);
    expect(fake.requests[0]!.url).toBe('/v1/chat/completions');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer not-needed');
  });

  test('when nothing answers, PlannerUnavailableError says what was tried', async () => {
    const port = await closedPort();
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(failure(503), failure(503), failure(503));
    const { planner } = plannerFor(
      llmConfig([
        openai(fake),
        endpoint('ollama', `http://127.0.0.1:${port}`, { model: 'llama3.1' }),
      ]),
    );

    const err = await planner
      .plan(request([user('hi')], streaming().more))
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(PlannerUnavailableError);
    const e = err as PlannerUnavailableError;
    expect(e.message).toBe(
      `no model could be reached: openai (gpt-test at 127.0.0.1:${fake.port}) 503 unavailable x3; ` +
        `ollama (llama3.1 at 127.0.0.1:${port}) connection refused`,
    );
    expect(e.attempts.map((a) => a.outcome)).toEqual(['server', 'server', 'server', 'connect']);
  });

  test('an abort stops at once: no retry, no failover', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    await using other = await startFakeOpenAi();
    const held = gate();
    fake.script(
      streamed ? reply('one two three four', { holdAfterFirst: held.wait }) : { kind: 'hang' },
    );
    const { planner, seen } = plannerFor(llmConfig([openai(fake), endpoint('ollama', other.url)]));
    const controller = new AbortController();
    const deltas: string[] = [];
    const onText = (d: string) => {
      deltas.push(d);
      controller.abort();
    };

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
    expect(seen.waits).toEqual([]);
    expect(other.bodies).toHaveLength(0);
    await waitFor(() => fake.abandoned === 1, 'the fake to see the client leave');
    held.open();
  });

  test('the API key never appears in an error message or an attempt', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(failure(500, { message: `upstream said: key ${OPENAI_KEY} is odd` }));
    const wrongKey = 'sk-wrong-0123456789abcdefQZXW';
    const { planner } = plannerFor(
      llmConfig([endpoint('openai', `${fake.url}/v1`, { apiKey: wrongKey, model: 'gpt-test' })], {
        retries: 0,
      }),
    );

    const err = (await planner
      .plan(request([user('hi')], streaming().more))
      .catch((e: unknown) => e)) as PlannerUnavailableError;

    expect(err).toBeInstanceOf(PlannerUnavailableError);
    expect(err.attempts[0]).toMatchObject({ outcome: 'auth', status: 401 });
    const everything = JSON.stringify({ message: err.message, attempts: err.attempts });
    expect(everything).not.toContain(wrongKey);
    expect(everything).not.toContain('QZXW');
    expect(err.attempts[0]!.message).toContain(
      '401 API key refused: Incorrect API key provided: [redacted]',
    );

    // a server that echoes the right key back in full
    const { planner: p2 } = plannerFor(llmConfig([openai(fake)], { retries: 0 }));
    const err2 = (await p2
      .plan(request([user('hi')], streaming().more))
      .catch((e: unknown) => e)) as PlannerUnavailableError;
    expect(err2.attempts[0]).toMatchObject({ outcome: 'server', status: 500 });
    expect(JSON.stringify(err2.attempts)).not.toContain(OPENAI_KEY);
    expect(err2.attempts[0]!.message).toContain('upstream said: key [redacted] is odd');
  });

  test('a request that outlives its timeout is a timeout, retried', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script({ kind: 'hang' }, reply('late but here'));
    const { planner } = plannerFor(llmConfig([openai(fake, { timeoutMs: 300 })]));

    const step = await planner.plan(request([user('hi')], streaming().more));

    expect(step).toMatchObject({ type: 'reply', text: 'late but here' });
    expect(step.round!.attempts.map((a) => a.outcome)).toEqual(['timeout', 'ok']);
    expect(step.round!.attempts[0]!.message).toBe(
      `openai at 127.0.0.1:${fake.port}: timed out after 0.3 s`,
    );
  });

  test('a body that is not the wire format is a bad response, not retried', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script({
      kind: 'raw',
      body: streamed ? 'data: {"choices": 5}\n\n' : '{"choices": []}',
      contentType: streamed ? 'text/event-stream' : 'application/json',
    });
    const { planner } = plannerFor(llmConfig([openai(fake)]));

    const err = (await planner
      .plan(request([user('hi')], streaming().more))
      .catch((e: unknown) => e)) as PlannerUnavailableError;

    expect(err).toBeInstanceOf(PlannerUnavailableError);
    expect(err.attempts.map((a) => a.outcome)).toEqual(['bad_response']);
    expect(err.attempts[0]!.message).toMatch(/bad response: .*chat completions format at choices/);
  });
});

describe('OpenAI chat completions streaming failures', () => {
  test('a stream cut mid-answer is a server error, retried', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script({ kind: 'drop', text: 'partial answer' }, reply('whole answer'));
    const { planner } = plannerFor(llmConfig([openai(fake)]));
    let text = '';

    const step = await planner.plan(request([user('hi')], { onText: (d) => void (text += d) }));

    expect(step).toMatchObject({ type: 'reply', text: 'whole answer' });
    expect(step.round!.attempts.map((a) => a.outcome)).toEqual(['server', 'ok']);
    expect(text).toBe('partwhole answer');
  });

  test('an error chunk mid-stream is a server error, retried', async () => {
    await using fake = await startFakeOpenAi({ key: OPENAI_KEY });
    fake.script(
      { kind: 'stream_error', text: 'hello', type: 'server_error', message: 'boom' },
      reply('ok'),
    );
    const { planner } = plannerFor(llmConfig([openai(fake)]));

    const step = await planner.plan(request([user('hi')], { onText: () => undefined }));

    expect(step.round!.attempts.map((a) => a.outcome)).toEqual(['server', 'ok']);
    expect(step.round!.attempts[0]!.message).toContain('error mid-answer: boom');
  });
});
