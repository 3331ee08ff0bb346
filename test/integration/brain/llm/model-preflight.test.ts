import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  describeModelCheck,
  preflightModel,
  preflightModels,
} from '../../../../src/brain/llm/model-preflight.js';
import { startFakeServer, type FakeServer } from '../../../helpers/http-server.js';
import { closedPort } from '../../../helpers/ports.js';
import { startFakeAnthropic, startFakeOpenAi, type FakeLlm } from '../../../helpers/fake-llm.js';
import { ANTHROPIC_KEY, endpoint, llmConfig, OPENAI_KEY } from './setup.js';

// Issue 29, point 8: nothing at start confirmed the LLM configuration. The brain now asks the
// model endpoint for its model list at start; these run that check against loopback servers
// speaking OpenAI's, Ollama's `/v1` and Anthropic's model-list wire formats.

const OLLAMA_MODELS = ['llama3.1:latest', 'qwen2.5:7b', 'mistral:7b'];
/** More than Anthropic's default page of 20: the wanted one is on no first page of 20. */
const CLAUDES = Array.from({ length: 24 }, (_, i) => `claude-old-${i}`).concat('claude-test');

describe('the model endpoint preflight', () => {
  let openai: FakeLlm;
  let ollama: FakeLlm;
  let anthropic: FakeLlm;
  let listless: FakeLlm;
  let silent: FakeServer;

  beforeAll(async () => {
    openai = await startFakeOpenAi({ key: OPENAI_KEY, models: ['gpt-4o-mini', 'gpt-test'] });
    ollama = await startFakeOpenAi({ models: OLLAMA_MODELS });
    anthropic = await startFakeAnthropic({ key: ANTHROPIC_KEY, models: CLAUDES });
    listless = await startFakeOpenAi();
    // accepts the connection, never answers
    silent = await startFakeServer(() => new Promise<void>(() => undefined));
  });

  afterAll(async () => {
    await Promise.all([openai, ollama, anthropic, listless, silent].map((s) => s?.close()));
  });

  test('ok: the server lists the model (OpenAI, with its key)', async () => {
    const check = await preflightModel(
      endpoint('openai', `${openai.url}/v1`, { apiKey: OPENAI_KEY, model: 'gpt-test' }),
    );
    expect(check).toMatchObject({ state: 'ok', detail: 'the server lists it (1 of 2)' });
    expect(describeModelCheck(check)).toBe(
      `llm openai 'gpt-test' at 127.0.0.1:${openai.port}: ok: the server lists it (1 of 2)`,
    );
  });

  test('a model the server does not list: how many it lists, and the nearest', async () => {
    const check = await preflightModel(endpoint('ollama', ollama.url, { model: 'llama3.1:8b' }));
    expect(check).toMatchObject({
      state: 'problem',
      detail:
        "model 'llama3.1:8b' not among the 3 the server lists: did you mean 'llama3.1:latest'?",
    });
  });

  test("Ollama's name without a tag is its :latest", async () => {
    const check = await preflightModel(endpoint('ollama', ollama.url, { model: 'llama3.1' }));
    expect(check.state).toBe('ok');
  });

  test("Anthropic's paged list is read past its default page", async () => {
    const check = await preflightModel(
      endpoint('anthropic', anthropic.url, { apiKey: ANTHROPIC_KEY, model: 'claude-test' }),
    );
    expect(check).toMatchObject({ state: 'ok', detail: 'the server lists it (1 of 25)' });
  });

  test('a refused key names the env var to set, never the key', async () => {
    const wrong = 'sk-wrong-0123456789abcdef';
    const check = await preflightModel(
      endpoint('openai', `${openai.url}/v1`, { apiKey: wrong, model: 'gpt-test' }),
    );
    expect(check).toMatchObject({
      state: 'problem',
      detail:
        '401 at /v1/models: check the API key CAESAR_LLM__OPENAI__API_KEY (the one set was refused)',
    });
    expect(JSON.stringify(check)).not.toContain('0123456789');
    const anthropicCheck = await preflightModel(
      endpoint('anthropic', anthropic.url, { apiKey: wrong, model: 'claude-test' }),
    );
    expect(anthropicCheck.detail).toContain('check the API key CAESAR_LLM__ANTHROPIC__API_KEY');
  });

  test('an endpoint nothing listens on is unreachable, at once', async () => {
    const port = await closedPort();
    const check = await preflightModel(endpoint('openai', `http://127.0.0.1:${port}/v1`));
    expect(check).toMatchObject({ state: 'problem', detail: 'endpoint unreachable: ECONNREFUSED' });
  });

  test('a server that never answers is given up on at the timeout', async () => {
    const started = Date.now();
    const check = await preflightModel(endpoint('openai', `${silent.url}/v1`), {
      timeoutMs: 300,
    });
    expect(check).toMatchObject({
      state: 'problem',
      detail: 'endpoint unreachable: no answer within 0.3 s',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('a server with no model list is not checked, and not a problem', async () => {
    const check = await preflightModel(endpoint('openai', `${listless.url}/v1`));
    expect(check).toMatchObject({
      state: 'unknown',
      detail: 'the server keeps no model list (404 at /v1/models); the first chat will tell',
    });
  });

  test('the primary and each fallback are checked; provider none checks nothing', async () => {
    const checks = await preflightModels(
      llmConfig([
        endpoint('ollama', ollama.url, { model: 'qwen2.5:7b' }),
        endpoint('anthropic', anthropic.url, { apiKey: ANTHROPIC_KEY, model: 'claude-test' }),
      ]),
    );
    expect(checks.map((c) => [c.provider, c.state])).toEqual([
      ['ollama', 'ok'],
      ['anthropic', 'ok'],
    ]);
    const none = llmConfig([endpoint('ollama', ollama.url)], { provider: 'none' });
    expect(await preflightModels(none)).toEqual([]);
  });
});
