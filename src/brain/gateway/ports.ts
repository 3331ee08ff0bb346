import type { AppendableEventType, AppendResult, AuditEventInput } from '../../audit/index.js';
import type {
  EvaluateContext,
  PolicyDecision,
  PolicyExplanation,
  ToolCall,
} from '../../policy/index.js';
import type { CallOutcome } from '../api/index.js';
import type { RegisteredTool } from '../registry/index.js';
import type { PreflightResult } from '../preflight/index.js';
import type { JobSubmission } from '../jobs/index.js';

/** The parts of the live policy the gateway reads (a PolicyStore in the daemon). */
export interface PolicySource {
  evaluate(call: ToolCall, ctx?: EvaluateContext): PolicyDecision;
  /** Decides a call without counting it against a rate limit. */
  explain(call: ToolCall, ctx?: EvaluateContext): PolicyExplanation;
  readonly policy: { readonly sha256: string };
}

/** Where decisions are recorded (the AuditLog in the daemon). */
export interface AuditSink {
  /** One row; its payload's type follows from its event type (the audit catalogue). */
  append<T extends AppendableEventType>(event: AuditEventInput<T>): Promise<AppendResult>;
}

/** Live tools (the Registry in the daemon). */
export interface ToolSource {
  tool(name: string): RegisteredTool | undefined;
}

/** What the gateway reports to Prometheus (BrainMetrics in the daemon). */
export interface GatewayMetrics {
  toolCall(tool: string, outcome: CallOutcome, durationMs: number): void;
  decision(rule: string, outcome: string): void;
  dispatch(tool: string, durationMs: number): void;
  auditAppend(durationMs: number): void;
}

/**
 * Tools' current preflight answers (the brain's PreflightCache): a call whose answer warns is
 * held for a human first (ADR 0091).
 */
export interface PreflightSource {
  get(tool: string): Promise<PreflightResult>;
}

/**
 * The job queue (ADR 0098), as the gateway submits to it: a call whose tool runs as a job is
 * put on the work queue after its `tool.called` row, and answered with the job's id.
 */
export interface JobSink {
  submit(s: JobSubmission): Promise<{ id: string; status: string }>;
  /** Jobs not yet ended: all, or one tool's (for `tools.limits`). */
  activeCount(tool?: string): number;
}

/** The operator's limits on jobs (`tools.limits`), enforced at submission. */
export interface JobLimits {
  /** Longest a job may run (`max_wall_clock`): a tool whose `timeout_ms` is longer is refused. */
  maxWallClockMs?: number;
  /** Jobs of one tool not yet ended (`max_concurrent_jobs_per_tool`). */
  maxPerTool?: number;
  /** Jobs not yet ended over every tool (`max_concurrent_jobs`). */
  maxTotal?: number;
  /** How long a job may wait on the queue before a worker must have started it. @default 24 h */
  maxQueueMs?: number;
}
