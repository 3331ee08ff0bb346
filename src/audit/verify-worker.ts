import type { MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { RangeWalker, type RangeResult } from './verify-range.js';

/** What a verification worker thread is given: one seq range of one file. */
export interface RangeJob {
  readonly path: string;
  readonly from: number;
  readonly to: number;
  readonly expectedPrev: string | null;
}

/**
 * Runs in a worker thread: verifies one range on its own read-only connection. Exported for
 * verify.ts, whose thread imports this module by URL and calls it by name.
 */
export function runRangeJob(job: RangeJob, port: MessagePort): void {
  let result: RangeResult;
  const db = new Database(job.path, { readonly: true, fileMustExist: true });
  try {
    result = new RangeWalker(db, job.from, job.to, job.expectedPrev).run();
  } finally {
    db.close();
  }
  port.postMessage(result);
}
