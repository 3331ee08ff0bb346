// Public surface of the LLM gateway: providers (OpenAI-compatible, Ollama, Anthropic), the
// retrying chain, the transcript rules and the planner behind the agent's Planner seam.
export { createPlanner, createProvider } from './create.js';
export type { CreatePlannerDeps } from './create.js';
export { LlmPlanner } from './planner.js';
export type { LlmPlannerOptions } from './planner.js';
export { ProviderChain, unavailableMessage } from './chain.js';
export type { ChainAnswer, ChainOptions, LlmAttemptEvent, LlmObserver } from './chain.js';
export { DEFAULT_BACKOFF, jitteredDelay, retryDelay } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { parseRetryAfter } from './retry-after.js';
export { OpenAiProvider, ollamaProvider, ollamaV1 } from './openai.js';
export type { OpenAiProviderOptions } from './openai.js';
export { AnthropicProvider } from './anthropic.js';
export type { AnthropicProviderOptions } from './anthropic.js';
export { toTranscript, callIdOf } from './transcript.js';
export { fenceToolContent, TOOL_CONTENT_MAX_CHARS } from './tool-content.js';
export { parseCallArguments } from './arguments.js';
export { DEFAULT_SYSTEM_PROMPT } from './prompt.js';
export { LlmError } from './types.js';
export type {
  LlmErrorKind,
  LlmMessage,
  LlmProvider,
  LlmRequest,
  LlmResponse,
  LlmTool,
  LlmToolCall,
  LlmUsage,
} from './types.js';
