import { ConfigError, type ConfigIssue } from '../../config/index.js';
import type { LlmConfig, LlmEndpointConfig } from '../../config/types.js';
import type { Logger } from '../../log/index.js';
import { envVarName, keyAndEnv } from '../../text/index.js';
import type { Planner } from '../agent/ports.js';
import { AnthropicProvider } from './anthropic.js';
import { ProviderChain, type ChainOptions, type LlmObserver } from './chain.js';
import { originOf } from './errors.js';
import { ollamaProvider, OpenAiProvider } from './openai.js';
import { LlmPlanner } from './planner.js';
import type { LlmProvider } from './types.js';

type ModelProvider = LlmEndpointConfig['provider'];

interface CreatePlannerDeps {
  readonly logger: Logger;
  /** Metrics hooks: every attempt, every round. */
  readonly observer?: LlmObserver;
  /** For tests: the chain's wait and jitter source. */
  readonly sleep?: ChainOptions['sleep'];
  readonly random?: ChainOptions['random'];
}

/** Where each provider's key is required: its own public API. */
const KEYED_ORIGINS: Readonly<Partial<Record<ModelProvider, string>>> = {
  openai: 'api.openai.com',
  anthropic: 'api.anthropic.com',
};

/**
 * The planner `llm` configures: the primary provider, then each fallback in order, behind
 * one retrying chain. Undefined for provider `none` (the brain answers with its local rules
 * only).
 * @throws ConfigError naming every missing setting at once: a model for the primary and each
 * fallback; an API key for OpenAI or Anthropic at their own API (Ollama and a custom
 * `base_url` may go without).
 */
export function createPlanner(config: LlmConfig, deps: CreatePlannerDeps): Planner | undefined {
  if (config.provider === 'none') return undefined;
  const order: ModelProvider[] = [config.provider, ...config.fallback];
  const issues = order.flatMap((p, i) => endpointIssues(config.endpoints[p], i === 0));
  if (issues.length > 0) throw new ConfigError(issues);
  const log = deps.logger.child({ component: 'llm' });
  const providers = order.map((p) => createProvider(config.endpoints[p], log));
  const chain = new ProviderChain({
    providers,
    retries: config.retries,
    logger: log,
    ...(deps.observer ? { observer: deps.observer } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.random ? { random: deps.random } : {}),
  });
  return new LlmPlanner({
    chain,
    ...(config.systemPrompt === undefined ? {} : { systemPrompt: config.systemPrompt }),
  });
}

/** One endpoint's provider; the endpoint must have a model (see createPlanner). */
export function createProvider(e: LlmEndpointConfig, logger: Logger): LlmProvider {
  if (e.model === undefined) throw new Error(`llm.${e.provider}.model is not set`);
  const common = {
    baseUrl: e.baseUrl,
    model: e.model,
    timeoutMs: e.timeoutMs,
    maxTokens: e.maxTokens,
    logger,
    ...(e.apiKey === undefined ? {} : { apiKey: e.apiKey }),
    ...(e.temperature === undefined ? {} : { temperature: e.temperature }),
  };
  if (e.provider === 'anthropic') return new AnthropicProvider(common);
  if (e.provider === 'ollama') return ollamaProvider(common);
  return new OpenAiProvider(common);
}

function endpointIssues(e: LlmEndpointConfig, primary: boolean): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const role = primary ? 'the primary provider' : 'a fallback provider';
  if (e.model === undefined) {
    const own = keyAndEnv(['llm', e.provider, 'model']);
    const keys = primary ? `${keyAndEnv(['llm', 'model'])} or ${own}` : own;
    issues.push(
      issue(['llm', e.provider, 'model'], `${e.provider} is ${role} but has no model; set ${keys}`),
    );
  }
  const keyedAt = KEYED_ORIGINS[e.provider];
  if (e.apiKey === undefined && keyedAt !== undefined && originOf(e.baseUrl) === keyedAt) {
    const path = ['llm', e.provider, 'api_key'];
    issues.push(
      issue(
        path,
        `${e.provider} at ${keyedAt} needs an API key; set ${keyAndEnv(path)} (or ${envVarName(path)}_FILE naming a file that holds it)`,
      ),
    );
  }
  return issues;
}

/** The setting is unset: what is in effect came from the defaults. */
function issue(path: readonly string[], message: string): ConfigIssue {
  return { source: 'defaults', path: path.join('.'), message };
}
