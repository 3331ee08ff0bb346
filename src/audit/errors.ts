import { CaesarError, errorMessage } from '../errors/index.js';

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

interface AuditErrorOptions {
  cause?: unknown;
  retryable?: boolean;
}

/** Base class of every error the audit module throws or rejects with. */
export class AuditError extends CaesarError {
  declare readonly code: AuditErrorCode;
  override readonly name: string = 'AuditError';

  constructor(code: AuditErrorCode, message: string, options: AuditErrorOptions = {}) {
    super(code, message, options);
  }
}

/**
 * The log could not make a batch durable (disk full, read-only file, corrupt database, I/O
 * error). Nothing of the batch was written: callers must fail closed.
 */
export class AuditWriteError extends AuditError {
  override readonly name = 'AuditWriteError';
  readonly sqliteCode: string | undefined;
  /** How many appends of the same group commit failed with this error. */
  readonly batchSize: number;

  constructor(message: string, options: { cause: unknown; batchSize: number }) {
    const sqliteCode = sqliteCodeOf(options.cause);
    super('audit_write_failed', message, {
      cause: options.cause,
      retryable: sqliteCode === 'SQLITE_BUSY',
    });
    this.sqliteCode = sqliteCode;
    this.batchSize = options.batchSize;
  }
}

/** `append` after `close()` began. */
export class AuditClosedError extends AuditError {
  override readonly name = 'AuditClosedError';
  constructor(path: string) {
    super('audit_closed', errorMessage('audit_closed', { path }));
  }
}

/** The database could not be opened, migrated or read at open time. */
export class AuditOpenError extends AuditError {
  override readonly name = 'AuditOpenError';
  readonly path: string;
  readonly sqliteCode: string | undefined;

  constructor(path: string, message: string, cause?: unknown) {
    super('audit_open_failed', errorMessage('audit_open_failed', { path, reason: message }), {
      cause,
    });
    this.path = path;
    this.sqliteCode = sqliteCodeOf(cause);
  }
}

/** A reader was pointed at a file that does not exist. */
export class AuditNotFoundError extends AuditError {
  override readonly name = 'AuditNotFoundError';
  readonly path: string;

  constructor(path: string, cause?: unknown) {
    super('audit_not_found', errorMessage('audit_not_found', { path }), { cause });
    this.path = path;
  }
}

/** The file's schema version is not one this build can use (newer, or not an audit log). */
export class AuditSchemaError extends AuditError {
  override readonly name = 'AuditSchemaError';
  readonly path: string;
  readonly found: number;
  readonly supported: number;

  constructor(path: string, found: number, supported: number, message: string) {
    super('audit_schema_unsupported', message);
    this.path = path;
    this.found = found;
    this.supported = supported;
  }
}

/** Another live process (normally the brain) holds the log's writer lock. */
export class AuditLockedError extends AuditError {
  override readonly name = 'AuditLockedError';
  readonly lockPath: string;
  readonly pid: number | undefined;
  readonly host: string | undefined;

  constructor(lockPath: string, holder: { pid?: number; host?: string }) {
    const who = holder.pid === undefined ? 'another process' : `pid ${holder.pid}`;
    const where = holder.host === undefined ? '' : ` on ${holder.host}`;
    super('audit_locked', errorMessage('audit_locked', { holder: `${who}${where}`, lockPath }));
    this.lockPath = lockPath;
    this.pid = holder.pid;
    this.host = holder.host;
  }
}

/** A programming error: unknown event type, bad outcome, payload of the wrong shape. */
export class AuditEventError extends AuditError {
  override readonly name = 'AuditEventError';
  readonly eventType: string;

  constructor(eventType: string, message: string, cause?: unknown) {
    super(
      'audit_invalid_event',
      errorMessage('audit_invalid_event', { type: JSON.stringify(eventType), reason: message }),
      {
        cause,
      },
    );
    this.eventType = eventType;
  }
}

/** A file failed `PRAGMA integrity_check` or chain verification where it had to pass. */
export class AuditIntegrityError extends AuditError {
  override readonly name = 'AuditIntegrityError';
  readonly path: string;

  constructor(path: string, message: string, cause?: unknown) {
    super(
      'audit_integrity_failed',
      errorMessage('audit_integrity_failed', { path, reason: message }),
      {
        cause,
      },
    );
    this.path = path;
  }
}

/** Online backup failed; the destination is left untouched or removed. */
export class AuditBackupError extends AuditError {
  override readonly name = 'AuditBackupError';
  constructor(message: string, cause?: unknown) {
    super('audit_backup_failed', message, { cause });
  }
}

/** Restore refused or failed before the live file was replaced. */
export class AuditRestoreError extends AuditError {
  override readonly name = 'AuditRestoreError';
  constructor(message: string, cause?: unknown) {
    super('audit_restore_failed', message, { cause });
  }
}
