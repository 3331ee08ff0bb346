export { defineTool, ToolDefinitionError } from './define.js';
export type { ToolDefinition, ToolDefinitionInput } from './define.js';
export type { ToolContext, ToolStartContext, PreflightResult } from './context.js';
export { serveTools, ToolConfigError } from './serve.js';
export type { ServeOptions, ToolWorker, ToolInstance } from './serve.js';
export { runTools } from './run.js';
export type { RunToolsOptions } from './run.js';
export { runPreflight } from './preflight.js';
// Tool authors throw these; re-exported so a worker imports only the SDK.
export {
  CaesarError,
  InvalidInputError,
  NotConfiguredError,
  BackendError,
  TimeoutError,
} from '../protocol/index.js';
// Workers that start threads or processes find their compiled script with these.
export { assertScriptExists, compiledScriptUrl } from '../runtime/index.js';
