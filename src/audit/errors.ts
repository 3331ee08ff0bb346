/**
 * Error catalogue of the audit log. Every failure the log reports is an `AuditError` with a
 * stable `code`, the underlying `cause`, and `retryable` set on the failure itself (never
 * guessed from message text). The brain treats any `AuditWriteError` as "do not act".
 */
export type AuditErrorCode =
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

export interface AuditErrorOptions {
  cause?: unknown;
  retryable?: boolean;
}

/** Base class of every error the audit module throws or rejects with. */
export class AuditError extends Error {
  readonly code: AuditErrorCode;
  readonly retryable: boolean;

  constructor(code: AuditErrorCode, message: string, options: AuditErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AuditError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** SQLite's own error code (`SQLITE_FULL`, `SQLITE_READONLY`, ...) when the cause has one. */
export function sqliteCodeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = err.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * The log could not make a batch durable (disk full, read-only file, corrupt database, I/O
 * error). Nothing of the batch was written: callers must fail closed.
 */
export class AuditWriteError extends AuditError {
  readonly sqliteCode: string | undefined;
  /** How many appends of the same group commit failed with this error. */
  readonly batchSize: number;

  constructor(message: string, options: { cause: unknown; batchSize: number }) {
    const sqliteCode = sqliteCodeOf(options.cause);
    super('audit_write_failed', message, {
      cause: options.cause,
      retryable: sqliteCode === 'SQLITE_BUSY',
    });
    this.name = 'AuditWriteError';
    this.sqliteCode = sqliteCode;
    this.batchSize = options.batchSize;
  }
}

/** `append` after `close()` began. */
export class AuditClosedError extends AuditError {
  constructor(path: string) {
    super('audit_closed', `audit log ${path} is closed`);
    this.name = 'AuditClosedError';
  }
}

/** The database could not be opened, migrated or read at open time. */
export class AuditOpenError extends AuditError {
  readonly path: string;
  readonly sqliteCode: string | undefined;

  constructor(path: string, message: string, cause?: unknown) {
    super('audit_open_failed', `cannot open audit log ${path}: ${message}`, { cause });
    this.name = 'AuditOpenError';
    this.path = path;
    this.sqliteCode = sqliteCodeOf(cause);
  }
}

/** A reader was pointed at a file that does not exist. */
export class AuditNotFoundError extends AuditError {
  readonly path: string;

  constructor(path: string, cause?: unknown) {
    super('audit_not_found', `no audit log at ${path}`, { cause });
    this.name = 'AuditNotFoundError';
    this.path = path;
  }
}

/** The file's schema version is not one this build can use (newer, or not an audit log). */
export class AuditSchemaError extends AuditError {
  readonly path: string;
  readonly found: number;
  readonly supported: number;

  constructor(path: string, found: number, supported: number, message: string) {
    super('audit_schema_unsupported', message);
    this.name = 'AuditSchemaError';
    this.path = path;
    this.found = found;
    this.supported = supported;
  }
}

/** Another live process (normally the brain) holds the log's writer lock. */
export class AuditLockedError extends AuditError {
  readonly lockPath: string;
  readonly pid: number | undefined;
  readonly host: string | undefined;

  constructor(lockPath: string, holder: { pid?: number; host?: string }) {
    const who = holder.pid === undefined ? 'another process' : `pid ${holder.pid}`;
    const where = holder.host === undefined ? '' : ` on ${holder.host}`;
    super(
      'audit_locked',
      `audit log is in use by ${who}${where} (lock file ${lockPath}); stop that process first`,
      { retryable: true },
    );
    this.name = 'AuditLockedError';
    this.lockPath = lockPath;
    this.pid = holder.pid;
    this.host = holder.host;
  }
}

/** A programming error: unknown event type, bad outcome, payload of the wrong shape. */
export class AuditEventError extends AuditError {
  readonly eventType: string;

  constructor(eventType: string, message: string, cause?: unknown) {
    super('audit_invalid_event', `invalid audit event ${JSON.stringify(eventType)}: ${message}`, {
      cause,
    });
    this.name = 'AuditEventError';
    this.eventType = eventType;
  }
}

/** A file failed `PRAGMA integrity_check` or chain verification where it had to pass. */
export class AuditIntegrityError extends AuditError {
  readonly path: string;

  constructor(path: string, message: string, cause?: unknown) {
    super('audit_integrity_failed', `${path}: ${message}`, { cause });
    this.name = 'AuditIntegrityError';
    this.path = path;
  }
}

/** Online backup failed; the destination is left untouched or removed. */
export class AuditBackupError extends AuditError {
  constructor(message: string, cause?: unknown) {
    super('audit_backup_failed', message, { cause });
    this.name = 'AuditBackupError';
  }
}

/** Restore refused or failed before the live file was replaced. */
export class AuditRestoreError extends AuditError {
  constructor(message: string, cause?: unknown) {
    super('audit_restore_failed', message, { cause });
    this.name = 'AuditRestoreError';
  }
}
