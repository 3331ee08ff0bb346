// Public surface of the LLM gateway: `createPlanner` builds the planner behind the agent's
// Planner seam (providers: OpenAI-compatible, Ollama, Anthropic, behind one retrying chain)
// from the config; the observer types carry each attempt to the brain's metrics.
export { createPlanner } from './create.js';
export type { LlmAttemptEvent, LlmObserver } from './chain.js';
export { describeModelCheck, describeModelChoice, preflightModels } from './model-preflight.js';
