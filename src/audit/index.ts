// Public surface of the audit log. Pure storage: SQLite, no NATS, no HTTP.
export { AuditLog, openAuditLog } from './log.js';
export type { AppendResult } from './log.js';
export { AuditReader } from './reader.js';
// The names of event types and outcomes: `event-names.ts`, which the CLI's flags import
// directly, so that declaring them loads no zod (ADR 0047).
export type {
  AnyAuditEventInput,
  AppendableEventType,
  AuditEventInput,
  AuditPayload,
} from './events.js';
export type { AuditRecord } from './record.js';
export { recordToJsonLine } from './record.js';
export { formatRecord, formatStats, formatVerifyReport } from './format.js';
export { AuditQuerySchema } from './query.js';
export type { AuditCounts, AuditFilter, AuditQuery } from './query.js';
export { parseChainHead } from './head-check.js';
export type { ChainHead, HeadCheck } from './head-check.js';
export { restoreDatabase as restoreAuditLog } from './backup.js';
export { canonicalJson, canonicalRow, chainHash, GENESIS_HASH } from './canonical.js';
export { AuditError } from './errors.js';
export { insertStored, prepareInsert } from './chain.js';
