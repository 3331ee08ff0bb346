import { existsSync, statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { backupDatabase, type BackupResult } from './backup.js';
import { openReaderConnection } from './connection.js';
import { AuditOpenError } from './errors.js';
import { checkHead, type ChainHead, type HeadCheck } from './head-check.js';
import {
  countRecords,
  iterateRecords,
  queryRecords,
  type AuditCounts,
  type AuditFilter,
  type AuditQuery,
} from './query.js';
import type { AuditRecord } from './record.js';
import { schemaVersionOf } from './schema.js';
import { verifyChain, type VerifyOptions, type VerifyReport } from './verify.js';

export interface AuditStats {
  readonly path: string;
  readonly schemaVersion: number;
  readonly rows: number;
  readonly firstSeq: number | null;
  readonly lastSeq: number | null;
  readonly firstTs: string | null;
  readonly lastTs: string | null;
  /** Main file plus `-wal`, in bytes. */
  readonly fileBytes: number;
  readonly counts: AuditCounts;
}

function sizeOf(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** The read side shared by the writer (`AuditLog`) and the read-only `AuditReader`. */
export class AuditReadable {
  /** Replaced only when the writer reopens its file (`AuditLog`). */
  protected db: Database;
  readonly path: string;

  protected constructor(db: Database, path: string) {
    this.db = db;
    this.path = path;
  }

  /** Newest first by default; `afterSeq` reads forward from a seq (tailing). */
  query(query: AuditQuery = {}): AuditRecord[] {
    return queryRecords(this.db, query);
  }

  /** Every matching record, oldest first, read page by page. */
  records(filter: AuditFilter = {}): Generator<AuditRecord> {
    return iterateRecords(this.db, filter);
  }

  /** Counts by event type, tool and outcome. */
  counts(filter: AuditFilter = {}): AuditCounts {
    return countRecords(this.db, filter);
  }

  stats(): AuditStats {
    const span = this.db
      .prepare(
        'SELECT (SELECT seq FROM audit_events ORDER BY seq LIMIT 1) AS firstSeq, ' +
          '(SELECT ts FROM audit_events ORDER BY seq LIMIT 1) AS firstTs, ' +
          '(SELECT seq FROM audit_events ORDER BY seq DESC LIMIT 1) AS lastSeq, ' +
          '(SELECT ts FROM audit_events ORDER BY seq DESC LIMIT 1) AS lastTs',
      )
      .get() as Pick<AuditStats, 'firstSeq' | 'firstTs' | 'lastSeq' | 'lastTs'>;
    const counts = this.counts();
    return {
      path: this.path,
      schemaVersion: schemaVersionOf(this.db),
      rows: counts.total,
      ...span,
      fileBytes: sizeOf(this.path) + sizeOf(`${this.path}-wal`),
      counts,
    };
  }

  /**
   * Walks the whole chain on a dedicated read-only connection (one consistent snapshot),
   * yielding to the event loop between chunks.
   */
  async verify(opts: VerifyOptions = {}): Promise<VerifyReport> {
    const db = openReaderConnection(this.path);
    try {
      return await verifyChain(db, { path: this.path, ...opts });
    } catch (err) {
      throw new AuditOpenError(
        this.path,
        `verification could not read the log: ${(err as Error).message}`,
        err,
      );
    } finally {
      db.close();
    }
  }

  /** Is the row of a head recorded earlier still there, with that hash? See head-check.ts. */
  checkHead(expected: ChainHead): HeadCheck {
    return checkHead(this.db, expected);
  }

  /** Online backup to `to` (which must not exist), then verifies the copy. */
  backup(to: string): Promise<BackupResult> {
    return backupDatabase(this.db, to);
  }
}

/** A read-only view of a log file: what the CLI uses, safe while the brain appends. */
export class AuditReader extends AuditReadable implements Disposable {
  #closed = false;

  private constructor(db: Database, path: string) {
    super(db, path);
  }

  /** Opens an existing log read-only. Throws AuditNotFoundError, AuditSchemaError. */
  static open(path: string): AuditReader {
    return new AuditReader(openReaderConnection(path), path);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.db.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
