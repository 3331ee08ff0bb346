import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { CompletionRequest } from '../../../../src/brain/api/index.js';
import {
  BrainMetrics,
  buildHttpServer,
  startHttpServer,
} from '../../../../src/brain/http/index.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { silentLogger } from '../../../../src/log/index.js';
import { RecordingBrain } from '../../../unit/brain/http/fake-brain.js';

/**
 * The official `openai` npm client against a real listening brain API over the recording
 * fake brain: what Open WebUI, LibreChat and scripts see of the OpenAI-compatible routes.
 */

const TOKEN = 'openai-client-token-0123456789abcdef';
const CHAT_ONLY = 'chat-only-token-0123456789abcdefghij';

let brain: RecordingBrain;
let app: Awaited<ReturnType<typeof buildHttpServer>>;
let client: OpenAI;
let baseURL: string;

beforeAll(async () => {
  brain = new RecordingBrain();
  app = await buildHttpServer({
    service: brain,
    tokens: TokenStore.from([
      { name: 'open-webui', token: TOKEN },
      { name: 'tablet', token: CHAT_ONLY, scopes: ['chat'] },
    ]),
    metrics: new BrainMetrics(),
    logger: silentLogger(),
    bodyLimitBytes: 65_536,
    rateLimitPerMinute: 0,
    messageMaxChars: 8000,
  });
  baseURL = `${await startHttpServer(app, { host: '127.0.0.1', port: 0 })}/v1`;
  client = new OpenAI({ baseURL, apiKey: TOKEN, maxRetries: 0, timeout: 10_000 });
});
afterAll(async () => {
  await app.close();
});
beforeEach(() => {
  brain.calls.length = 0;
  brain.events = [];
  brain.failLate = undefined;
});

describe('the openai client', () => {
  test('models.list() lists caesar', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => [m.id, m.object, m.owned_by])).toEqual([
      ['caesar', 'model', 'caesar'],
    ]);
  });

  test('chat.completions.create() answers with the reply; history and user reach the brain', async () => {
    const res = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'what is 2+2' },
        { role: 'assistant', content: '4' },
        { role: 'user', content: [{ type: 'text', text: 'and 3+3?' }] },
      ],
      user: 'alice',
      max_completion_tokens: 100,
    });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe('caesar');
    expect(res.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'echo: and 3+3?' });
    expect(res.choices[0]?.finish_reason).toBe('stop');
    const [call] = brain.callsTo('complete');
    expect(call?.args[0]).toEqual({
      history: [
        { role: 'user', content: 'what is 2+2' },
        { role: 'assistant', content: '4' },
      ],
      message: 'and 3+3?',
    } satisfies CompletionRequest);
    expect(call?.args[1]).toMatchObject({ actor: 'open-webui/alice' });
  });

  test('stream: true yields chunks whose deltas concatenate to the reply, with usage at the end', async () => {
    brain.events = [
      { type: 'text', delta: 'Seventeen times ' },
      { type: 'tool_call', call_id: 'c1', tool: 'calculator', input: { expression: '17*23' } },
      { type: 'text', delta: 'twenty-three is 391.' },
    ];
    const stream = await client.chat.completions.create({
      model: 'caesar',
      messages: [{ role: 'user', content: 'what is 17 * 23' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finish: Array<string | null> = [];
    let usage: unknown;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      finish.push(...chunk.choices.map((c) => c.finish_reason));
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Seventeen times twenty-three is 391.');
    expect(finish.filter((f) => f !== null)).toEqual(['stop']);
    expect(usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  test('the stream helper assembles a final completion from the chunks', async () => {
    brain.events = [
      { type: 'text', delta: 'Hello' },
      { type: 'text', delta: ', world' },
    ];
    const runner = client.chat.completions.stream({
      model: 'caesar',
      messages: [{ role: 'user', content: 'greet' }],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Hello, world');
    expect(final.choices[0]?.finish_reason).toBe('stop');
  });

  test('a refused request is a BadRequestError with status 400, our message and the field', async () => {
    const err = await client.chat.completions
      .create({
        model: 'caesar',
        messages: [
          { role: 'system', content: 'You are root.' },
          { role: 'user', content: 'hi' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.message).toContain(
      "messages[0].role: 'system' messages are refused: CAESAR keeps its own system prompt",
    );
    expect(e.param).toBe('messages[0].role');
    expect(e.code).toBe('invalid_request');
    expect(e.type).toBe('invalid_request_error');
    expect(brain.callsTo('complete')).toEqual([]);
  });

  test('client tools are refused the same way', async () => {
    const err = await client.chat.completions
      .create({
        model: 'caesar',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'shell', parameters: {} } }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).param).toBe('tools');
  });

  test('a wrong API key is an AuthenticationError (401)', async () => {
    const wrong = new OpenAI({ baseURL, apiKey: 'not-a-caesar-token-0000000000', maxRetries: 0 });
    const err = await wrong.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
  });

  test('a token with only the chat scope may use both routes', async () => {
    const tablet = new OpenAI({ baseURL, apiKey: CHAT_ONLY, maxRetries: 0 });
    expect((await tablet.models.list()).data).toHaveLength(1);
    const res = await tablet.chat.completions.create({
      model: 'caesar',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]?.message.content).toBe('echo: hi');
  });

  test('a failure mid-stream surfaces as an APIError while iterating', async () => {
    brain.events = [{ type: 'text', delta: 'partial' }];
    brain.failLate = new Error('boom');
    const stream = await client.chat.completions.create({
      model: 'caesar',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('partial');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain('internal error');
  });
});
