export { ToolGateway } from './gateway.js';
export type { ToolGatewayOptions } from './gateway.js';
export type { AuditSink, GatewayMetrics, PolicySource, ToolSource } from './ports.js';
export { ConfirmationNotFoundError } from './errors.js';
export { newDecisionId } from './ids.js';
export { summarizeCall } from './summary.js';
export { applyObligations } from './obligations.js';
