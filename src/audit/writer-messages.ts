import type { Appended, ChainTip } from './chain.js';
import type { ClampLimits } from './limits.js';
import type { PreparedRow } from './row.js';
import type { RetentionResult } from './retention.js';

/**
 * The messages between the audit log (main thread) and its writer thread (ADR 0020,
 * addendum 2026-12). Both ends are this module's code in one process, so the types are the
 * contract; nothing from outside reaches this port.
 */

/** What the writer thread is started with (`workerData`). */
export interface WriterInit {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly maxDatabaseBytes: number | undefined;
  readonly maxBatch: number;
  readonly limits: ClampLimits;
  /** The main thread found the files not writable at open and has logged it. */
  readonly notWritableAtOpen: boolean;
  /** Test hook: the thread blocks this long inside every transaction, as a slow fsync would. */
  readonly commitDelayMs: number;
}

/**
 * Main thread -> writer. Rows and sweeps are handled in the order they are posted. The rows
 * of one turn of the main thread's loop come in chunks; every chunk but the turn's last says
 * `more: true`, and the thread commits only after a `more: false` (or at `maxBatch` rows).
 */
export type ToWriter =
  | { readonly type: 'append'; readonly rows: readonly PreparedRow[]; readonly more: boolean }
  | { readonly type: 'sweep'; readonly id: number; readonly days: number; readonly now: string }
  | { readonly type: 'close' };

/** Why a transaction failed, as plain data (an Error does not cross the port intact). */
export interface WriterFailure {
  readonly message: string;
  /** `SQLITE_FULL`, `SQLITE_BUSY`, ... when SQLite said so. */
  readonly sqliteCode: string | undefined;
}

/** Writer -> main thread. Append outcomes refer to the oldest rows not yet answered, in order. */
export type FromWriter =
  | { readonly type: 'ready'; readonly tip: ChainTip }
  | { readonly type: 'committed'; readonly results: readonly Appended[] }
  | {
      readonly type: 'failed';
      readonly count: number;
      readonly failure: WriterFailure;
      readonly tip: ChainTip;
    }
  | {
      readonly type: 'swept';
      readonly id: number;
      readonly result: RetentionResult;
      readonly tip: ChainTip;
    }
  | { readonly type: 'sweep_failed'; readonly id: number; readonly failure: WriterFailure }
  | { readonly type: 'reopened'; readonly tip: ChainTip }
  | {
      readonly type: 'log';
      readonly level: 'info' | 'warn' | 'error';
      readonly fields: Readonly<Record<string, unknown>>;
      readonly msg: string;
    }
  | { readonly type: 'closed'; readonly tip: ChainTip };
