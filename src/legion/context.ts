import type { Logger } from '../log/index.js';
import type { PreflightCheck, WorkerRef } from '../protocol/index.js';

/** What a handler gets with each call. Unit tests build one by hand. */
export interface ToolContext<C = unknown> {
  /** Child logger bound to the tool, the worker and the decision id. */
  readonly logger: Logger;
  /** Aborts when the call's deadline passes or the worker is cut off at shutdown. */
  readonly signal: AbortSignal;
  /** The brain's decision id for this call. */
  readonly decisionId: string;
  /** Absolute deadline (epoch ms), already capped by the tool's timeoutMs. */
  readonly deadline: number;
  /** The tool's config section, validated against its `config` schema. */
  readonly config: C;
  readonly worker: WorkerRef;
  /**
   * A job only (ADR 0098): reports how far the job is, to the brain's live tail, `GET
   * /v1/jobs/{id}` and the audit log (`job.progress`). Reports closer than half a second
   * apart are dropped, the last one (`fraction: 1`) never. Absent on a plain call.
   */
  readonly progress?: (p: { fraction?: number; message?: string }) => void;
  /** A job only: which delivery this is (1 first; more after a redelivery). */
  readonly attempt?: number;
}

/** What `start` and `preflight` get. */
export interface ToolStartContext<C = unknown> {
  readonly logger: Logger;
  readonly config: C;
  readonly worker: WorkerRef;
}

export interface PreflightResult {
  ok: boolean;
  checks?: PreflightCheck[];
  warnings?: string[];
}
