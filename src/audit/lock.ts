import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { readJsonValue } from '../text/index.js';
import { AuditLockedError } from './errors.js';

/**
 * The writer lock: `<db>.lock`, created with O_EXCL and holding `{pid, host, since}`. One
 * writer per file, because the writer keeps the chain tip in memory. A lock left by a dead
 * process on this host (SIGKILL, power loss) is stale and taken over; a lock from another
 * host is never guessed at. Readers (the CLI) take no lock.
 */

interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

export function lockPathFor(dbPath: string): string {
  return `${dbPath}.lock`;
}

function readLock(lockPath: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // a torn write of the lock file (not JSON) is treated as held by an unknown process below
  const parsed = (readJsonValue(text) ?? {}) as Partial<LockHolder>;
  if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
    return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '') };
  }
  return { pid: -1, host: '', since: '' };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A holder that is certainly gone: same host, and the pid no longer exists. */
function isStale(holder: LockHolder): boolean {
  return holder.host === hostname() && holder.pid > 0 && !processAlive(holder.pid);
}

function lockedError(lockPath: string, holder: LockHolder): AuditLockedError {
  return new AuditLockedError(lockPath, {
    ...(holder.pid > 0 ? { pid: holder.pid } : {}),
    ...(holder.host ? { host: holder.host } : {}),
  });
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    const holder: LockHolder = {
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
    };
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

export interface WriterLock {
  readonly path: string;
  /** Set when a stale lock was replaced, for the caller to log. */
  readonly tookOverFrom: LockHolder | undefined;
  release(): void;
}

/** Takes the writer lock or throws AuditLockedError naming the holder. */
export function acquireLock(lockPath: string): WriterLock {
  let tookOverFrom: LockHolder | undefined;
  if (!tryCreate(lockPath)) {
    const holder = readLock(lockPath);
    if (holder !== undefined && !isStale(holder)) throw lockedError(lockPath, holder);
    tookOverFrom = holder;
    rmSync(lockPath, { force: true });
    if (!tryCreate(lockPath)) {
      throw lockedError(lockPath, readLock(lockPath) ?? { pid: -1, host: '', since: '' });
    }
  }
  let released = false;
  return {
    path: lockPath,
    tookOverFrom,
    release() {
      if (released) return;
      released = true;
      const holder = readLock(lockPath);
      if (holder?.pid === process.pid) rmSync(lockPath, { force: true });
    },
  };
}
