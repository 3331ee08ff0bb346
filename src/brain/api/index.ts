export {
  CALL_OUTCOMES,
  CapabilitiesViewSchema,
  ChatEventSchema,
  ChatRequestSchema,
  ChatResponseSchema,
  ConfirmRequestSchema,
  ConfirmResponseSchema,
  ExplainRequestSchema,
  HttpErrorSchema,
  InvokeRequestSchema,
  JobListResponseSchema,
  JobViewSchema,
  PendingConfirmationSchema,
  PolicyStatusSchema,
  ToolCallReportSchema,
  ToolViewSchema,
} from './contract.js';
export type {
  CallOutcome,
  CapabilitiesView,
  Caller,
  ChatEvent,
  ChatRequest,
  ChatResponse,
  ConfirmResponse,
  ConfirmationTicket,
  ExplainFlow,
  JobListResponse,
  JobStatus,
  JobView,
  PendingConfirmation,
  PolicyStatusView,
  Readiness,
  ToolCallReport,
  ToolView,
  Whoami,
} from './contract.js';
export type {
  BrainService,
  ChatOptions,
  CompletionRequest,
  ConfirmOptions,
  OfferedToolView,
} from './service.js';
export {
  API_SCOPES,
  ensureTokensFile,
  principalOfToken,
  readTokensFile,
  TokensFileError,
} from './tokens-file.js';
export { principalOf } from './contract.js';
export type { Principal } from '../../policy/principal.js';
export type { ApiScope, ApiToken } from './tokens-file.js';
export { heldCallLines, type HeldCall } from './held-call-text.js';
