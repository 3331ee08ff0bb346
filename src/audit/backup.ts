import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Logger } from '../log/index.js';
import {
  AuditBackupError,
  AuditIntegrityError,
  AuditNotFoundError,
  AuditRestoreError,
} from './errors.js';
import { acquireLock, lockPathFor } from './lock.js';
import { assertSupportedSchema } from './schema.js';
import { verifyChain, type VerifyReport } from './verify.js';

/**
 * Online backup (SQLite backup API: a consistent copy while the brain keeps appending) and
 * restore. A backup is written to a temporary name and renamed into place, so a crash
 * never leaves a half-written file under the requested name. Restore checks the source
 * first, refuses while a writer holds the live log, and moves the current file (with its
 * `-wal`/`-shm`) aside instead of deleting it.
 */

export interface BackupResult {
  readonly path: string;
  readonly bytes: number;
  /** Chain verification of the copy; a tampered source gives a faithful, failing copy. */
  readonly verify: VerifyReport;
}

const SIDE_FILES = ['-wal', '-shm'] as const;

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function removeWithSideFiles(path: string): void {
  for (const suffix of ['', ...SIDE_FILES]) rmSync(path + suffix, { force: true });
}

/** Checks a standalone copy: SQLite integrity, a schema we can read, then the chain. */
async function checkCopy(path: string, readonly: boolean): Promise<VerifyReport> {
  const db = new Database(path, { fileMustExist: true, readonly });
  try {
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    if (integrity !== 'ok') throw new AuditIntegrityError(path, `integrity_check: ${integrity}`);
    assertSupportedSchema(db, path, true);
    return await verifyChain(db);
  } finally {
    db.close();
  }
}

/** Copies the live database `source` to `to`, which must not exist yet. */
export async function backupDatabase(source: SqliteDatabase, to: string): Promise<BackupResult> {
  if (existsSync(to))
    throw new AuditBackupError(to, 'the file exists, and a backup never overwrites one');
  const tmp = `${to}.partial-${process.pid}`;
  removeWithSideFiles(tmp);
  try {
    await source.backup(tmp);
    const verify = await checkCopy(tmp, false);
    renameSync(tmp, to);
    fsyncDir(dirname(to));
    return { path: to, bytes: statSync(to).size, verify };
  } catch (err) {
    removeWithSideFiles(tmp);
    if (err instanceof AuditIntegrityError) throw err;
    throw new AuditBackupError(to, (err as Error).message, err);
  }
}

interface RestoreOptions {
  readonly from: string;
  readonly to: string;
  readonly logger: Logger;
}

interface RestoreResult {
  readonly path: string;
  readonly verify: Extract<VerifyReport, { ok: true }>;
  /** Where the replaced log was moved, if there was one. */
  readonly previousMovedTo: string | undefined;
}

/** Checkpoints the old log into its main file, then renames it (and any side files) aside. */
function moveAside(path: string, logger: Logger): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const db = new Database(path, { fileMustExist: true });
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
  } catch (err) {
    logger.warn({ err, path }, 'could not checkpoint the log being replaced; moving it as is');
  }
  const aside = `${path}.pre-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  for (const suffix of ['', ...SIDE_FILES]) {
    if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  }
  return aside;
}

/** Restores `from` over `to` after checking `from`; refuses while a writer holds `to`. */
export async function restoreDatabase(opts: RestoreOptions): Promise<RestoreResult> {
  if (!existsSync(opts.from)) throw new AuditNotFoundError(opts.from);
  const verify = await checkCopy(opts.from, true);
  if (!verify.ok) {
    throw new AuditIntegrityError(
      opts.from,
      `chain verification failed at seq ${verify.badSeq} (${verify.reason}); not restoring`,
    );
  }
  const lock = acquireLock(lockPathFor(opts.to));
  const tmp = `${opts.to}.restore-${process.pid}`;
  try {
    removeWithSideFiles(tmp);
    const src = new Database(opts.from, { readonly: true, fileMustExist: true });
    try {
      await src.backup(tmp);
    } finally {
      src.close();
    }
    const copy = new Database(tmp, { fileMustExist: true });
    copy.pragma('journal_mode = WAL');
    copy.close();
    const previousMovedTo = moveAside(opts.to, opts.logger);
    renameSync(tmp, opts.to);
    fsyncDir(dirname(opts.to));
    opts.logger.info({ from: opts.from, to: opts.to, previousMovedTo }, 'audit log restored');
    return { path: opts.to, verify, previousMovedTo };
  } catch (err) {
    removeWithSideFiles(tmp);
    throw new AuditRestoreError(opts.from, opts.to, (err as Error).message, err);
  } finally {
    lock.release();
  }
}
