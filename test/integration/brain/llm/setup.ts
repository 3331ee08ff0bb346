import type { LlmConfig, LlmEndpointConfig } from '../../../../src/config/types.js';
import type {
  ConversationTurn,
  Planner,
  PlannerTool,
  ToolTurnRecord,
} from '../../../../src/brain/agent/ports.js';
import {
  createPlanner,
  type LlmAttemptEvent,
  type LlmObserver,
} from '../../../../src/brain/llm/index.js';
import type { PlanRound } from '../../../../src/brain/agent/ports.js';
import { silentLogger } from '../../../../src/log/index.js';

export const OPENAI_KEY = 'sk-test-4f9a2c7e1b3d5a6c8e0f1234';
export const ANTHROPIC_KEY = 'sk-ant-test-7d1e3c5a9b2f4e6d8c0a5678';
export const PROMPT = 'You are a test assistant.';

export function endpoint(
  provider: LlmEndpointConfig['provider'],
  baseUrl: string,
  more: Partial<LlmEndpointConfig> = {},
): LlmEndpointConfig {
  return {
    provider,
    baseUrl,
    model: `${provider}-model`,
    timeoutMs: 10_000,
    maxTokens: 256,
    ...more,
  };
}

/** An `llm` config: the first endpoint is the primary, the rest fallbacks in order. */
export function llmConfig(
  endpoints: readonly LlmEndpointConfig[],
  more: Partial<LlmConfig> = {},
): LlmConfig {
  const [primary, ...fallbacks] = endpoints;
  if (!primary) throw new Error('at least one endpoint');
  const unused = (p: LlmEndpointConfig['provider']): LlmEndpointConfig => ({
    provider: p,
    baseUrl: 'http://127.0.0.1:9',
    timeoutMs: 1000,
    maxTokens: 1,
  });
  const byName = Object.fromEntries(endpoints.map((e) => [e.provider, e]));
  return {
    provider: primary.provider,
    fallback: fallbacks.map((e) => e.provider),
    systemPrompt: PROMPT,
    retries: 2,
    mode: 'react',
    maxCallsPerRound: 8,
    maxCallsPerTurn: 24,
    includeTags: [],
    excludeTags: [],
    endpoints: {
      openai: byName.openai ?? unused('openai'),
      anthropic: byName.anthropic ?? unused('anthropic'),
      ollama: byName.ollama ?? unused('ollama'),
    },
    ...more,
  };
}

/** What the chain did while planning: the waits it asked for, the observer's reports. */
export interface Recorded {
  readonly waits: number[];
  readonly attempts: LlmAttemptEvent[];
  readonly rounds: PlanRound[];
}

/** A planner over `config` whose waits are recorded and end at once (or on abort). */
export function plannerFor(config: LlmConfig): { planner: Planner; seen: Recorded } {
  const seen: Recorded = { waits: [], attempts: [], rounds: [] };
  const observer: LlmObserver = {
    attempt: (a) => void seen.attempts.push(a),
    round: (r) => void seen.rounds.push(r),
  };
  const planner = createPlanner(config, {
    logger: silentLogger(),
    observer,
    random: () => 0.5,
    sleep: (ms, signal) => {
      seen.waits.push(ms);
      return signal.aborted ? Promise.reject(signal.reason as Error) : Promise.resolve();
    },
  });
  if (!planner) throw new Error('no planner');
  return { planner, seen };
}

export const TOOLS: PlannerTool[] = [
  {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
      additionalProperties: false,
    },
  },
  {
    name: 'web_search',
    description: 'Searches the web.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    },
  },
];

export const user = (content: string): ConversationTurn => ({ role: 'user', content });
export const assistant = (content: string): ConversationTurn => ({ role: 'assistant', content });
export const tool = (record: Partial<ToolTurnRecord> & { name: string }): ConversationTurn => ({
  role: 'tool',
  content: '',
  tool: { decision_id: '0190a000-0000-7000-8000-000000000001', outcome: 'ok', ...record },
});

export function request(
  history: ConversationTurn[],
  more: { onText?: (d: string) => void; signal?: AbortSignal } = {},
) {
  return {
    history,
    tools: TOOLS,
    iteration: 1,
    signal: more.signal ?? new AbortController().signal,
    ...(more.onText ? { onText: more.onText } : {}),
  };
}
