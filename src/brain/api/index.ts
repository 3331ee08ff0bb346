export {
  CALL_OUTCOMES,
  ChatEventSchema,
  ChatRequestSchema,
  ChatResponseSchema,
  ConfirmRequestSchema,
  ConfirmationTicketSchema,
  ExplainRequestSchema,
  HttpErrorSchema,
  InvokeRequestSchema,
  ReadinessSchema,
  ToolCallReportSchema,
  ToolPolicyViewSchema,
  ToolViewSchema,
} from './contract.js';
export type {
  CallOutcome,
  Caller,
  ChatEvent,
  ChatRequest,
  ChatResponse,
  ConfirmationTicket,
  HttpError,
  Readiness,
  ToolCallReport,
  ToolView,
} from './contract.js';
export type { BrainService, ChatOptions } from './service.js';
