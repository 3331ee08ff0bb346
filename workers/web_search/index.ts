export { webSearchTool, createWebSearchTool } from './tool.js';
export type { WebSearchToolOptions } from './tool.js';
export {
  WebSearchInputSchema,
  WebSearchOutputSchema,
  SearchResultSchema,
  MAX_QUERY_LENGTH,
  MAX_RESULTS,
} from './schema.js';
export type { WebSearchInput, WebSearchOutput, SearchResult } from './schema.js';
export {
  WebSearchConfigSchema,
  BACKENDS,
  DEFAULTS,
  NOT_CONFIGURED_MESSAGE,
  TOOL_TIMEOUT_MS,
} from './config.js';
export type { BackendName, BackendSettings, WebSearchSettings } from './config.js';
export {
  normaliseResults,
  plainText,
  parsePublished,
  MAX_TITLE_LENGTH,
  MAX_SNIPPET_LENGTH,
  MAX_URL_LENGTH,
} from './results.js';
export type { Candidate } from './results.js';
export { braveLanguage, BRAVE_MAX_QUERY_CHARS, BRAVE_MAX_COUNT } from './backends/brave.js';
export { TAVILY_MAX_QUERY_CHARS, TAVILY_MAX_RESULTS } from './backends/tavily.js';
export { PREFLIGHT_CACHE_MS } from './preflight.js';
