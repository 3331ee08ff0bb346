import type {
  AuditCounts,
  AuditFilter,
  AuditQuery,
  AuditRecord,
} from '../../../../src/audit/index.js';
import type {
  BrainService,
  CapabilitiesView,
  Caller,
  ChatEvent,
  ChatOptions,
  ChatRequest,
  ChatResponse,
  CompletionRequest,
  ConfirmOptions,
  ExplainFlow,
  JobView,
  PendingConfirmation,
  PolicyStatusView,
  Readiness,
  ToolCallReport,
  ToolView,
  OfferedToolView,
} from '../../../../src/brain/api/index.js';
import type { PolicyExplanation, Principal } from '../../../../src/policy/index.js';
import type { TagFilter } from '../../../../src/protocol/index.js';

/** One call the HTTP layer made into the service. */
export interface ServiceCall {
  readonly method: keyof BrainService;
  readonly args: readonly unknown[];
}

/**
 * A BrainService for the HTTP layer's tests only: canned answers, every call recorded, and
 * `fail` to make the next call of a method throw. The real core is tested end to end by the
 * daemon's own tests.
 */
export class RecordingBrain implements BrainService {
  readonly calls: ServiceCall[] = [];
  ready = true;
  readonly failures = new Map<keyof BrainService, Error>();
  /** What `chat` and `complete` send to `onEvent` before they answer. */
  events: ChatEvent[] = [];
  /**
   * When set, `chat` and `complete` wait for it after their events, or until their signal
   * aborts (then they throw its reason, as the real core does).
   */
  hold: Promise<void> | undefined;
  /** When set, `chat` and `complete` throw it after their events: a failure mid-turn. */
  failLate: Error | undefined;

  private record(method: keyof BrainService, ...args: unknown[]): void {
    this.calls.push({ method, args });
    const failure = this.failures.get(method);
    if (failure !== undefined) throw failure;
  }

  /** Makes every later call of `method` throw `err`. */
  fail(method: keyof BrainService, err: Error): this {
    this.failures.set(method, err);
    return this;
  }

  callsTo(method: keyof BrainService): ServiceCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  async chat(request: ChatRequest, caller: Caller, options?: ChatOptions): Promise<ChatResponse> {
    this.record('chat', request, caller, ...(options === undefined ? [] : [options]));
    await this.turn(options);
    return {
      session_id: request.session_id ?? 'sess-new',
      reply: `echo: ${request.message}`,
      tool_calls: [report('calculator', { expression: '1+1' }, 'ok')],
      iterations: 1,
      capped: false,
      planner: 'intent',
    };
  }

  async complete(
    request: CompletionRequest,
    caller: Caller,
    options?: ChatOptions,
  ): Promise<ChatResponse> {
    this.record('complete', request, caller, ...(options === undefined ? [] : [options]));
    await this.turn(options);
    return {
      session_id: 'sess-complete',
      reply: `echo: ${request.message}`,
      tool_calls: [],
      iterations: 1,
      capped: false,
      planner: 'llm',
    };
  }

  /** The scripted middle of a turn: events, then `hold`, then `failLate`. */
  private async turn(options: ChatOptions | undefined): Promise<void> {
    await Promise.resolve();
    for (const event of this.events) options?.onEvent?.(event);
    if (this.hold !== undefined) await untilAborted(this.hold, options?.signal);
    if (this.failLate !== undefined) throw this.failLate;
  }

  async listTools(filter?: TagFilter): Promise<ToolView[]> {
    this.record('listTools', filter);
    await Promise.resolve();
    return [
      {
        name: 'calculator',
        state: 'served',
        spec: { name: 'calculator', description: 'arithmetic' },
        instances: [{ id: 'i1', host: 'h1', version: '1.0.0' }],
        preflight: { ok: true, state: 'ready', detail: [], checked_at: '2026-11-30T12:00:00.000Z' },
        policy: { outcome: 'allow', rule: 'allowed_tools[0]', reason: 'listed' },
      },
    ];
  }

  async offeredTools(): Promise<OfferedToolView[]> {
    this.record('offeredTools');
    await Promise.resolve();
    return [];
  }

  onToolsChanged(): () => void {
    this.record('onToolsChanged');
    return () => undefined;
  }

  async capabilities(): Promise<CapabilitiesView> {
    this.record('capabilities');
    await Promise.resolve();
    return {
      model: { configured: false, steps: ['set llm.provider and llm.model'] },
      ready: [{ what: 'do arithmetic', example: 'what is 17 * 23' }],
      missing: [
        {
          what: 'search the web',
          step: 'start the web_search tool',
          steps: ['web_search is not running; start it: `caesar legion serve-tool web_search`'],
        },
      ],
    };
  }

  async invoke(tool: string, input: unknown, caller: Caller): Promise<ToolCallReport> {
    this.record('invoke', tool, input, caller);
    await Promise.resolve();
    if (tool === 'shell') {
      return {
        ...report(tool, input, 'denied'),
        reason: 'not in allowed_tools',
        rule: 'default_deny',
      };
    }
    if (tool === 'ghost') {
      return {
        ...report(tool, input, 'failed'),
        error: { code: 'no_worker', message: 'no instance of ghost is connected', retryable: true },
      };
    }
    return { ...report(tool, input, 'ok'), result: { value: 2 } };
  }

  async confirm(
    id: string,
    approve: boolean,
    caller: Caller,
    options?: ConfirmOptions,
  ): Promise<ToolCallReport> {
    this.record('confirm', id, approve, caller, ...(options === undefined ? [] : [options]));
    await Promise.resolve();
    return report('light', { on: true }, approve ? 'ok' : 'rejected');
  }

  /** The jobs `listJobs`, `job` and `cancelJob` answer from (ADR 0098). */
  jobs: JobView[] = [];

  listJobs(limit = 50): JobView[] {
    this.record('listJobs', limit);
    return this.jobs.slice(0, limit);
  }

  job(id: string): JobView | undefined {
    this.record('job', id);
    return this.jobs.find((j) => j.id === id);
  }

  async cancelJob(id: string, caller: Caller): Promise<JobView | undefined> {
    this.record('cancelJob', id, caller);
    await Promise.resolve();
    const job = this.jobs.find((j) => j.id === id);
    if (job === undefined || job.status !== 'queued') return job;
    job.status = 'cancelled';
    return job;
  }

  /** What `pendingConfirmations` answers. */
  pending: PendingConfirmation[] = [];
  /** The audit rows `auditQuery` reads when set (the live tail's tests); else one canned row. */
  rows: AuditRecord[] | undefined;
  readonly auditListeners = new Set<(seq: number) => void>();

  pendingConfirmations(): PendingConfirmation[] {
    this.record('pendingConfirmations');
    return this.pending;
  }

  onAuditAppended(listener: (seq: number) => void): () => void {
    this.auditListeners.add(listener);
    return () => this.auditListeners.delete(listener);
  }

  /** Appends a row to `rows` and tells the listeners, as a committed append does. */
  appendRow(row: Omit<AuditRecord, 'seq'>): AuditRecord {
    this.rows ??= [];
    const record = { ...row, seq: this.rows.length + 1 };
    this.rows.push(record);
    for (const listener of this.auditListeners) listener(record.seq);
    return record;
  }

  explain(
    tool: string,
    input: unknown,
    flow?: ExplainFlow,
    principal?: Principal,
  ): PolicyExplanation {
    this.record(
      'explain',
      tool,
      input,
      ...(flow === undefined ? [] : [flow]),
      ...(principal === undefined ? [] : [principal]),
    );
    const rule = {
      id: 'default_deny',
      file: 'policy.yaml',
      line: 1,
      column: 1,
      list: null,
      index: null,
    };
    return {
      decision: {
        allowed: false,
        outcome: 'deny',
        reason: `${tool} is not listed`,
        rule,
        decision_id: null,
        policy_sha256: 'abc',
        obligations: [],
      },
      trace: [],
    };
  }

  async policyStatus(): Promise<PolicyStatusView> {
    this.record('policyStatus');
    await Promise.resolve();
    return {
      status: 'ok',
      enforced: {
        path: '/srv/policy.yaml',
        sha256: 'a'.repeat(64),
        loaded_at: '2026-11-30T12:00:00.000Z',
        rules: 2,
      },
      disk: { sha256: 'a'.repeat(64), matches_enforced: true },
      last_reload_error: null,
    };
  }

  auditQuery(query: AuditQuery): AuditRecord[] {
    this.record('auditQuery', query);
    if (this.rows !== undefined) return tailOf(this.rows, query);
    return [
      {
        seq: 7,
        ts: '2026-11-30T12:00:00.000Z',
        type: 'tool.called',
        decisionId: 'd-1',
        sessionId: null,
        tool: 'calculator',
        actor: 'operator',
        principal: 'operator',
        outcome: 'allowed',
        payload: { input: { expression: '1+1' } },
        prevHash: 'p'.repeat(64),
        hash: 'h'.repeat(64),
      },
    ];
  }

  auditCounts(filter: AuditFilter): AuditCounts {
    this.record('auditCounts', filter);
    return {
      total: 3,
      byType: { 'tool.called': 3 },
      byTool: { calculator: 3 },
      byOutcome: { allowed: 3 },
    };
  }

  async readiness(): Promise<Readiness> {
    this.record('readiness');
    await Promise.resolve();
    const ok = { ok: this.ready, ...(this.ready ? {} : { detail: 'disconnected' }) };
    return { ready: this.ready, checks: { nats: ok, audit: { ok: true }, policy: { ok: true } } };
  }
}

/** `hold`, or the signal's reason as soon as it aborts. */
async function untilAborted(hold: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return hold;
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([hold, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export function report(
  tool: string,
  input: unknown,
  outcome: ToolCallReport['outcome'],
): ToolCallReport {
  return { tool, input, outcome, decision_id: `dec-${tool}`, duration_ms: 1.5 };
}

/** `query` over `rows` as the log answers it: after a seq oldest first, else newest first. */
function tailOf(rows: readonly AuditRecord[], query: AuditQuery): AuditRecord[] {
  const limit = query.limit ?? 100;
  if (query.afterSeq !== undefined) {
    return rows.filter((r) => r.seq > (query.afterSeq ?? 0)).slice(0, limit);
  }
  return [...rows].reverse().slice(0, limit);
}
