export { ToolGateway } from './gateway.js';
export type { AuditSink } from './ports.js';
