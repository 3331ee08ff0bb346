import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
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
 * The entry of verify.ts's threads (started by URL, never from an eval'd string): one
 * range (`workerData`), verified on its own read-only connection, its result posted back.
 * Loaded in the main thread (verify.ts imports only its types), it does nothing.
 */
if (!isMainThread && parentPort !== null) runRangeJob(workerData as RangeJob, parentPort);

function runRangeJob(job: RangeJob, port: MessagePort): void {
  let result: RangeResult;
  const db = new Database(job.path, { readonly: true, fileMustExist: true });
  try {
    result = new RangeWalker(db, job.from, job.to, job.expectedPrev).run();
  } finally {
    db.close();
  }
  port.postMessage(result);
}
