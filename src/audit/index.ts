// Public surface of the audit log. Pure storage: SQLite, no NATS, no HTTP.
export { AuditLog, openAuditLog } from './log.js';
export type { AppendResult } from './log.js';
export { AuditReader, AuditReadable } from './reader.js';
export type { AuditStats } from './reader.js';
export { AuditLogOptionsSchema } from './options.js';
export type { AuditLogOptions, ResolvedAuditLogOptions } from './options.js';
export { ClampLimitsSchema, resolveClampLimits, MAX_COLUMN_CHARS } from './limits.js';
export type { ClampLimits, ClampLimitsInput } from './limits.js';
export {
  AUDIT_EVENT_CATALOGUE,
  AUDIT_EVENT_TYPES,
  AUDIT_OUTCOMES,
  AuditDecisionSchema,
  isAuditEventType,
  isAuditOutcome,
} from './events.js';
export type {
  AnyAuditEventInput,
  AppendableEventType,
  AuditEventInput,
  AuditEventType,
  AuditOutcome,
  AuditPayload,
} from './events.js';
export type { AuditRecord } from './record.js';
export { recordToJsonLine } from './record.js';
export { formatRecord, formatStats, formatVerifyReport } from './format.js';
export { AuditQuerySchema } from './query.js';
export type { AuditCounts, AuditFilter, AuditQuery } from './query.js';
export type { VerifyFailureReason, VerifyOptions, VerifyReport } from './verify.js';
export type { RetentionResult } from './retention.js';
export { parseChainHead } from './head-check.js';
export type { ChainHead, HeadCheck } from './head-check.js';
export type { WriterStats } from './group-commit.js';
export type { ChainTip } from './chain.js';
export { restoreDatabase as restoreAuditLog } from './backup.js';
export type { BackupResult, RestoreOptions, RestoreResult } from './backup.js';
export { clampPayload, truncationMarker } from './clamp.js';
export type { ClampResult } from './clamp.js';
export { isSecretKey, redactText, REDACTED } from '../text/index.js';
export { canonicalJson, canonicalRow, chainHash, GENESIS_HASH } from './canonical.js';
export type { ChainedRow, JsonValue } from './canonical.js';
export { AUDIT_SCHEMA_VERSION, AUDIT_APPLICATION_ID } from './schema.js';
export { lockPathFor } from './lock.js';
export {
  AuditError,
  AuditWriteError,
  AuditClosedError,
  AuditOpenError,
  AuditNotFoundError,
  AuditSchemaError,
  AuditLockedError,
  AuditEventError,
  AuditIntegrityError,
  AuditBackupError,
  AuditRestoreError,
} from './errors.js';
export type { AuditErrorCode } from './errors.js';
