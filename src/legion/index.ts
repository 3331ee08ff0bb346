export { ToolDefinitionError } from './define.js';
export { defineTool } from './tool.js';
// A tool with several named actions, each a callable `tool.action` (ADR 0092).
export { action, callablesOf, MAX_ACTIONS } from './actions.js';
export type {
  ActionInput,
  ActionToolDefinition,
  ActionToolInput,
  AnyToolDefinition,
} from './actions.js';
// Tools that live outside the repository: a module's plain default export (ADR 0055).
export { loadToolModule, ToolModuleError } from './module.js';
export type { LoadToolModuleOptions } from './module.js';
export type { ToolDefinition, ToolDefinitionInput } from './define.js';
export type { ToolContext, ToolStartContext, PreflightResult } from './context.js';
export { serveTools, ToolConfigError } from './serve.js';
export { BusPermissionError } from '../bus/index.js';
export type { ServeOptions, ToolWorker, ToolInstance } from './serve.js';
export { runTools } from './run.js';
// A worker runs only calls a trusted brain signed (ADR 0052): serveTools' `grants` option.
export { GrantVerifier } from '../protocol/grant.js';
export type { RunToolsOptions } from './run.js';
// Tool authors throw these; re-exported so a worker imports only the SDK.
export { errorMessage } from '../errors/index.js';
export {
  CaesarError,
  InvalidInputError,
  NotConfiguredError,
  BackendError,
  TimeoutError,
  UpstreamEmptyError,
} from '../protocol/index.js';
// A CPU-bound step over untrusted data (a parser, an expander) runs in pooled worker threads
// with an enforced heap and time bound: a tool makes the pool here; its thread script serves
// the step with `serveThreadTask` from the SDK's thread entry, `src/legion/thread.ts`.
export { createThreadPool, DEADLINE_RESERVE_MS } from './thread-pool.js';
export type { ThreadPool, ThreadPoolOptions, ThreadRunOptions } from './thread-pool.js';
// What a tool's instances share (a pool, a backend's clients): opened by the first start,
// closed by the last stop.
export { RefCounted } from './ref-counted.js';
// Workers that start threads or processes find their compiled script with these, and start a
// thread of their own with `startThread`, the one home of worker threads (ADR 0082).
export {
  assertScriptExists,
  compiledScriptUrl,
  startThread,
  threadExitText,
} from '../process/index.js';
export type { Thread, ThreadExit } from '../process/index.js';
export { closest, settingName } from '../text/index.js';
// A backend's answer is JSON text from outside: read it with the one JSON ladder (depth,
// parse, prototype keys), as the brain reads its own inputs.
export { jsonRefusal, readJsonText, readJsonValue } from '../text/index.js';
// Wall-clock time in IANA zones, shared with the brain's date phrases.
export {
  DAY_MS,
  formatInstant,
  hostTimeZone,
  intlClock,
  isTimeZone,
  wallFromMs,
  wallMs,
} from '../clock/wall-clock.js';
export type { Clock, Wall } from '../clock/wall-clock.js';
// Whole milliseconds since a `performance.now()` reading, as a tool's log lines say them.
export { wholeMsSince } from '../clock/elapsed.js';
// Network tools reach their backend through one bounded HTTP client and probe it the same way.
export { HttpBackend, HttpFailure, USER_AGENT, DEFAULT_MAX_RESPONSE_BYTES } from './http.js';
export type { HttpBackendOptions, HttpCall, HttpReply, HttpFailureKind } from './http.js';
export { probeHttp, notConfigured, PREFLIGHT_TIMEOUT_MS } from './http-probe.js';
export type { ProbeResult } from './http-probe.js';
// The call_service wire shape: the brain checks calls against it, the worker serves it.
export { CALL_SERVICE_TOOL, SELECTOR_KINDS, CallServiceInputSchema } from '../protocol/index.js';
// The Home Assistant tool and its two actions (ADR 0093).
export { HOME_ASSISTANT_TOOL, HA_CALL_SERVICE, HA_ENTITIES } from '../protocol/index.js';
// The one reading of zod's issues: a config section's words for a key it does not take, and
// the first thing wrong with a backend's answer (`path: message`).
export { describeFirstIssue, unknownKeysWords } from '../protocol/index.js';
export type { SelectorKind, CallServiceInput } from '../protocol/index.js';
// Tools that run a command-line program under bubblewrap with kernel-enforced limits (ADR 0097).
export { defineCommandTool } from './command-tool.js';
export type {
  CommandDeclaration,
  CommandToolDefinition,
  CommandToolInput,
} from './command-tool.js';
export { DEFAULT_LIMITS } from './sandbox/limits.js';
export type { CommandLimits } from './sandbox/limits.js';
export type { CommandResult } from './sandbox/run.js';
export { Sandbox } from './sandbox/sandbox.js';
export type { SandboxCommand, SandboxOptions } from './sandbox/sandbox.js';
export {
  SandboxCpuLimitError,
  SandboxMemoryLimitError,
  SandboxOutputLimitError,
  SandboxTimeLimitError,
  SandboxUnavailableError,
} from './sandbox/errors.js';
