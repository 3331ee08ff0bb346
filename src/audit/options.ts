import type { Worker } from 'node:worker_threads';
import { z } from 'zod';
import type { Logger } from '../log/index.js';
import { silentLogger } from '../log/index.js';
import { ClampLimitsSchema, type ClampLimits } from './limits.js';

/** Options of `openAuditLog`: loose input -> defaults -> frozen. */
const AuditLogOptionsSchema = z.object({
  /** The SQLite file; created (with its directory) if missing. */
  path: z.string().min(1),
  /** Payload clamp limits. */
  limits: ClampLimitsSchema.default(ClampLimitsSchema.parse({})),
  retention: z
    .object({
      /** Rows older than this many days are deleted; 0 keeps everything. @default 90 */
      days: z.number().min(0).default(90),
      /** How often the background sweep runs; 0 disables the timer. @default 3600000 (1 h) */
      intervalMs: z.number().int().min(0).default(3_600_000),
    })
    .default({ days: 90, intervalMs: 3_600_000 }),
  /**
   * How often the chain head (`SEQ:HASH`) is logged when it moved, so the service's log
   * (journald, docker logs) holds a copy outside the file for `verify --expect-head`;
   * 0 logs it only at open and close. @default 3600000 (1 h)
   */
  headLogIntervalMs: z.number().int().min(0).default(3_600_000),
  /** Most rows written in one transaction; a larger backlog is split. @default 1024 */
  maxBatch: z.number().int().min(1).max(100_000).default(1024),
  /** How long a write waits for a lock held by another connection. @default 5000 */
  busyTimeoutMs: z.number().int().min(0).default(5000),
  /** Hard cap on the file size (SQLite `max_page_count`); appends past it fail closed. */
  maxDatabaseBytes: z.number().int().positive().optional(),
  /**
   * How long the writer thread may have nothing in flight before it stops, giving back its
   * memory (6.5 MiB of an idle brain); the next append starts another and waits for it to
   * open the file (p50 ~70 ms). 0 keeps the thread. @default 60000
   */
  writerIdleMs: z.number().int().min(0).default(60_000),
  /**
   * Test hook, not a setting: the writer thread blocks this long inside every transaction,
   * as a slow fsync (an SD card) would. @default 0
   */
  commitDelayMs: z.number().int().min(0).max(10_000).default(0),
});

export interface AuditLogOptions extends z.input<typeof AuditLogOptionsSchema> {
  /** @default silentLogger() */
  logger?: Logger;
  /** Source of `ts` and of "now" for retention. For tests and replays. @default () => new Date() */
  clock?: () => Date;
  /** Test hook: called with each writer thread as it starts (tests stop one to prove fail-closed). */
  onWriterThread?: (thread: Worker) => void;
}

export interface ResolvedAuditLogOptions {
  readonly path: string;
  readonly limits: ClampLimits;
  readonly retention: Readonly<{ days: number; intervalMs: number }>;
  readonly headLogIntervalMs: number;
  readonly maxBatch: number;
  readonly busyTimeoutMs: number;
  readonly maxDatabaseBytes: number | undefined;
  readonly writerIdleMs: number;
  readonly commitDelayMs: number;
  readonly logger: Logger;
  readonly clock: () => Date;
  readonly onWriterThread: ((thread: Worker) => void) | undefined;
}

export function resolveAuditLogOptions(input: AuditLogOptions): ResolvedAuditLogOptions {
  const { logger, clock, onWriterThread, ...rest } = input;
  const parsed = AuditLogOptionsSchema.parse(rest);
  return Object.freeze({
    path: parsed.path,
    limits: Object.freeze(parsed.limits),
    retention: Object.freeze(parsed.retention),
    headLogIntervalMs: parsed.headLogIntervalMs,
    maxBatch: parsed.maxBatch,
    busyTimeoutMs: parsed.busyTimeoutMs,
    maxDatabaseBytes: parsed.maxDatabaseBytes,
    writerIdleMs: parsed.writerIdleMs,
    commitDelayMs: parsed.commitDelayMs,
    logger: logger ?? silentLogger(),
    clock: clock ?? (() => new Date()),
    onWriterThread,
  });
}
