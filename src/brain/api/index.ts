export {
  CALL_OUTCOMES,
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
  ChatRequest,
  ChatResponse,
  ConfirmationTicket,
  HttpError,
  Readiness,
  ToolCallReport,
  ToolView,
} from './contract.js';
export type { BrainService } from './service.js';
