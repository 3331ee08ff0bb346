import { errorClass, errorFamily, type CodedError } from '../errors/index.js';

/**
 * The audit log's failures. Every one is an `AuditError` (a `CaesarError`) with a code from
 * the one catalogue (src/errors/catalogue.ts), the underlying `cause`, and `retryable` set on
 * the failure itself (never guessed from message text). The brain treats any
 * `AuditWriteError` as "do not act".
 */
import { sqliteCodeOf } from '../files/index.js';

type AuditErrorCode =
  | 'audit_write_failed'
  | 'audit_closed'
  | 'audit_open_failed'
  | 'audit_not_found'
  | 'audit_schema_unsupported'
  | 'audit_locked'
  | 'audit_invalid_event'
  | 'audit_integrity_failed'
  | 'audit_backup_failed'
  | 'audit_restore_failed';

/** Any error the audit module throws or rejects with: `err instanceof AuditError`. */
export const AuditError = errorFamily<AuditErrorCode>('AuditError', [
  'audit_write_failed',
  'audit_closed',
  'audit_open_failed',
  'audit_not_found',
  'audit_schema_unsupported',
  'audit_locked',
  'audit_invalid_event',
  'audit_integrity_failed',
  'audit_backup_failed',
  'audit_restore_failed',
]);
export type AuditError = CodedError<AuditErrorCode>;

/**
 * The log could not make a batch durable (disk full, read-only file, corrupt database, I/O
 * error). Nothing of the batch was written: callers must fail closed.
 */
export const AuditWriteError = errorClass(
  'audit_write_failed',
  (reason: string, options: { cause: unknown; batchSize: number }) => {
    const sqliteCode = sqliteCodeOf(options.cause);
    return {
      params: { reason },
      /** `batchSize`: how many appends of the same group commit failed with this error. */
      fields: { sqliteCode, batchSize: options.batchSize },
      options: { cause: options.cause, retryable: sqliteCode === 'SQLITE_BUSY' },
    };
  },
);
export type AuditWriteError = InstanceType<typeof AuditWriteError>;

/** `append` after `close()` began. */
export const AuditClosedError = errorClass('audit_closed', (path: string) => ({
  params: { path },
}));
export type AuditClosedError = InstanceType<typeof AuditClosedError>;

/** The database could not be opened, migrated or read at open time. */
export const AuditOpenError = errorClass(
  'audit_open_failed',
  (path: string, message: string, cause?: unknown) => ({
    params: { path, reason: message },
    fields: { path, sqliteCode: sqliteCodeOf(cause) },
    options: { cause },
  }),
);
export type AuditOpenError = InstanceType<typeof AuditOpenError>;

/** A reader was pointed at a file that does not exist. */
export const AuditNotFoundError = errorClass(
  'audit_not_found',
  (path: string, cause?: unknown) => ({
    params: { path },
    fields: { path },
    options: { cause },
  }),
);
export type AuditNotFoundError = InstanceType<typeof AuditNotFoundError>;

/** The file's schema version is not one this build can use (newer, or not an audit log). */
export const AuditSchemaError = errorClass(
  'audit_schema_unsupported',
  (path: string, found: number, supported: number, problem: string) => ({
    params: { path, problem },
    fields: { path, found, supported },
  }),
);
export type AuditSchemaError = InstanceType<typeof AuditSchemaError>;

/** Another live process (normally the brain) holds the log's writer lock. */
export const AuditLockedError = errorClass(
  'audit_locked',
  (lockPath: string, holder: { pid?: number; host?: string }) => {
    const who = holder.pid === undefined ? 'another process' : `pid ${holder.pid}`;
    const where = holder.host === undefined ? '' : ` on ${holder.host}`;
    return {
      params: { holder: `${who}${where}`, lockPath },
      fields: { lockPath, pid: holder.pid, host: holder.host },
    };
  },
);
export type AuditLockedError = InstanceType<typeof AuditLockedError>;

/** A programming error: unknown event type, bad outcome, payload of the wrong shape. */
export const AuditEventError = errorClass(
  'audit_invalid_event',
  (eventType: string, message: string, cause?: unknown) => ({
    params: { type: JSON.stringify(eventType), reason: message },
    fields: { eventType },
    options: { cause },
  }),
);
export type AuditEventError = InstanceType<typeof AuditEventError>;

/** A file failed `PRAGMA integrity_check` or chain verification where it had to pass. */
export const AuditIntegrityError = errorClass(
  'audit_integrity_failed',
  (path: string, message: string, cause?: unknown) => ({
    params: { path, reason: message },
    fields: { path },
    options: { cause },
  }),
);
export type AuditIntegrityError = InstanceType<typeof AuditIntegrityError>;

/** Online backup failed; the destination is left untouched or removed. */
export const AuditBackupError = errorClass(
  'audit_backup_failed',
  (to: string, reason: string, cause?: unknown) => ({ params: { to, reason }, options: { cause } }),
);
export type AuditBackupError = InstanceType<typeof AuditBackupError>;

/** Restore refused or failed before the live file was replaced. */
export const AuditRestoreError = errorClass(
  'audit_restore_failed',
  (from: string, to: string, reason: string, cause?: unknown) => ({
    params: { from, to, reason },
    options: { cause },
  }),
);
export type AuditRestoreError = InstanceType<typeof AuditRestoreError>;
