import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../../../src/config/index.js';
import type { LlmConfig, LlmEndpointConfig } from '../../../../src/config/types.js';
import { createPlanner } from '../../../../src/brain/llm/index.js';
import { createProvider } from '../../../../src/brain/llm/create.js';
import { silentLogger } from '../../../../src/log/index.js';

const DEFAULT_URLS = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  ollama: 'http://localhost:11434',
} as const;

function endpointOf(
  provider: LlmEndpointConfig['provider'],
  more: Partial<LlmEndpointConfig> = {},
): LlmEndpointConfig {
  return { provider, baseUrl: DEFAULT_URLS[provider], timeoutMs: 60_000, maxTokens: 1024, ...more };
}

function config(
  more: Partial<LlmConfig>,
  endpoints: Partial<Record<LlmEndpointConfig['provider'], Partial<LlmEndpointConfig>>> = {},
): LlmConfig {
  return {
    provider: 'openai',
    fallback: [],
    retries: 2,
    mode: 'react',
    maxCallsPerRound: 8,
    maxCallsPerTurn: 24,
    includeTags: [],
    excludeTags: [],
    endpoints: {
      openai: endpointOf('openai', endpoints.openai),
      anthropic: endpointOf('anthropic', endpoints.anthropic),
      ollama: endpointOf('ollama', endpoints.ollama),
    },
    ...more,
  };
}

const deps = { logger: silentLogger() };

function problems(c: LlmConfig): string[] {
  try {
    createPlanner(c, deps);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  return [];
}

describe('createPlanner', () => {
  test("provider 'none' has no planner", () => {
    expect(createPlanner(config({ provider: 'none' }), deps)).toBeUndefined();
  });

  test('a complete config makes the llm planner', () => {
    const planner = createPlanner(
      config({}, { openai: { model: 'gpt-4o-mini', apiKey: 'sk-x' } }),
      deps,
    );
    expect(planner?.name).toBe('llm');
  });

  test('the primary without a model names both keys that set it', () => {
    expect(problems(config({}, { openai: { apiKey: 'sk-x' } }))).toEqual([
      'llm.openai.model: openai is the primary provider but has no model; set llm.model (CAESAR_LLM__MODEL) or llm.openai.model (CAESAR_LLM__OPENAI__MODEL)',
    ]);
  });

  test('a fallback without a model names its own key', () => {
    const c = config(
      { provider: 'ollama', fallback: ['anthropic'] },
      { ollama: { model: 'llama3.1' }, anthropic: { apiKey: 'k' } },
    );
    expect(problems(c)).toEqual([
      'llm.anthropic.model: anthropic is a fallback provider but has no model; set llm.anthropic.model (CAESAR_LLM__ANTHROPIC__MODEL)',
    ]);
  });

  test('OpenAI and Anthropic at their own APIs need a key; every problem is told at once', () => {
    const c = config(
      { provider: 'anthropic', fallback: ['openai'] },
      { anthropic: { model: 'claude' }, openai: { model: 'gpt' } },
    );
    expect(problems(c)).toEqual([
      'llm.anthropic.api_key: anthropic at api.anthropic.com needs an API key; set llm.anthropic.api_key (CAESAR_LLM__ANTHROPIC__API_KEY) (or CAESAR_LLM__ANTHROPIC__API_KEY_FILE naming a file that holds it)',
      'llm.openai.api_key: openai at api.openai.com needs an API key; set llm.openai.api_key (CAESAR_LLM__OPENAI__API_KEY) (or CAESAR_LLM__OPENAI__API_KEY_FILE naming a file that holds it)',
    ]);
  });

  test('Ollama and a custom OpenAI base URL may go without a key', () => {
    const c = config(
      { provider: 'openai', fallback: ['ollama'] },
      {
        openai: { model: 'qwen', baseUrl: 'http://llama.lan:8080/v1' },
        ollama: { model: 'llama3.1' },
      },
    );
    expect(problems(c)).toEqual([]);
  });
});

describe('createProvider', () => {
  test.each([
    ['openai', 'https://api.openai.com/v1', 'api.openai.com'],
    ['anthropic', 'https://api.anthropic.com', 'api.anthropic.com'],
    ['ollama', 'http://gpu.lan:11434', 'gpu.lan:11434'],
  ] as const)('%s at %s', (provider, baseUrl, origin) => {
    const p = createProvider(
      endpointOf(provider, { baseUrl, model: 'm', apiKey: 'k' }),
      silentLogger(),
    );
    expect([p.name, p.model, p.origin]).toEqual([provider, 'm', origin]);
  });
});
