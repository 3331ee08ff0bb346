import type { AuditFilter, AuditLog, AuditQuery } from '../../audit/index.js';
import {
  formatPolicyWarning,
  type PolicyExplanation,
  type PolicyIssue,
  type PolicyStore,
  type Principal,
} from '../../policy/index.js';
import { CaesarError, matchesTags, type TagFilter } from '../../protocol/index.js';
import type { Agent, PlannerTool } from '../agent/index.js';
import type {
  BrainService,
  CapabilitiesView,
  Caller,
  ChatOptions,
  ChatRequest,
  ChatResponse,
  CompletionRequest,
  ConfirmOptions,
  ConfirmResponse,
  ExplainFlow,
  OfferedToolView,
  JobView,
  PendingConfirmation,
  PolicyStatusView,
  Readiness,
  ToolCallReport,
  ToolView,
} from '../api/index.js';
import { principalOf } from '../api/index.js';
import type { ToolGateway } from '../gateway/index.js';
import type { Jobs } from '../jobs/index.js';
import type { Registry } from '../registry/index.js';
import type { LiveAuditSink } from '../audit-trail/live-sink.js';
import { policyWarnings, type KnownToolSources } from '../capabilities/known-tools.js';
import type { ConnectionWatch } from '../../bus/index.js';
import { preflightView, type PreflightCache } from '../preflight/index.js';

interface BrainCoreParts {
  connection: ConnectionWatch;
  registry: Registry;
  policy: PolicyStore;
  audit: AuditLog;
  auditSink: LiveAuditSink;
  gateway: ToolGateway;
  agent: Agent;
  preflight: PreflightCache;
  /** The job queue (ADR 0098). */
  jobs: Jobs;
  /** The catalog and the pinned tools; with the registry, the tools the brain knows of. */
  known: Omit<KnownToolSources, 'registry'>;
  /** The model the brain asks and its start-up check's lines, once known (`/readyz`). */
  model?: ModelReport;
  /** What works offline now and the steps for the rest (`GET /v1/capabilities`). */
  capabilities: () => Promise<CapabilitiesView>;
  /** The catalog's planned stubs (ADR 0090): listed, never served. @default none */
  planned?: readonly PlannedTool[];
  /**
   * The tools a model is offered now, with their cards (`OfferedTools`), to a principal when
   * given. @default none
   */
  offered?: (who?: Principal) => Promise<readonly PlannerTool[]>;
}

/** A catalog-only stub as `GET /v1/tools` lists it. */
export interface PlannedTool {
  readonly name: string;
  readonly purpose: string;
  readonly tags: readonly string[];
}

/** What the brain's runner found of its model at start (see `preflightModels`). */
export interface ModelReport {
  /** `model: openai gpt-4o-mini` or `no model: local rules only`. */
  readonly choice: string;
  /** One line per endpoint with a problem, once the check is done. */
  readonly problems: Promise<readonly string[]>;
}

/** BrainService over the real parts: what the HTTP API serves. */
export class BrainServiceAdapter implements BrainService {
  readonly #p: BrainCoreParts;

  /** The model check's problem lines, once it has finished; none before. */
  #modelProblems: readonly string[] = [];
  /** Each listener with the caller it lists for and what that caller was offered last. */
  readonly #toolListeners = new Map<() => void, { caller?: Caller; offered?: string }>();
  #watching = false;
  #toolsTimer: NodeJS.Timeout | undefined;

  constructor(parts: BrainCoreParts) {
    this.#p = parts;
    void parts.model?.problems.then((lines) => (this.#modelProblems = lines));
  }

  chat(request: ChatRequest, caller: Caller, options: ChatOptions = {}): Promise<ChatResponse> {
    return this.#p.agent.chat(request, caller, options);
  }

  complete(
    request: CompletionRequest,
    caller: Caller,
    options: ChatOptions = {},
  ): Promise<ChatResponse> {
    return this.#p.agent.chat({ message: request.message }, caller, {
      ...options,
      seed: request.history,
    });
  }

  capabilities(): Promise<CapabilitiesView> {
    return this.#p.capabilities();
  }

  onToolsChanged(listener: () => void, caller?: Caller): () => void {
    this.#toolListeners.set(listener, caller === undefined ? {} : { caller });
    this.#watchTools();
    void this.#compareTools();
    return () => this.#toolListeners.delete(listener);
  }

  /** Compares the offered tools after each registry change or sweep, once anyone listens. */
  #watchTools(): void {
    if (this.#watching) return;
    this.#watching = true;
    const changed = () => {
      clearTimeout(this.#toolsTimer);
      // one comparison for a burst of events (a worker's actions come together)
      this.#toolsTimer = setTimeout(() => void this.#compareTools(), 50);
      this.#toolsTimer.unref();
    };
    for (const event of ['instance_added', 'instance_removed', 'spec_changed', 'sweep'] as const) {
      this.#p.registry.on(event, changed);
    }
    void this.#compareTools();
  }

  /** Compares what each listener's caller is offered now with what it was offered last. */
  async #compareTools(): Promise<void> {
    for (const [listener, seen] of [...this.#toolListeners]) {
      let now: string;
      try {
        const tools = await this.offeredTools(seen.caller);
        now = JSON.stringify(tools.map((t) => [t.name, t.description, t.inputSchema]));
      } catch {
        continue; // compared again at the next sweep
      }
      const before = seen.offered;
      seen.offered = now;
      if (before !== undefined && before !== now && this.#toolListeners.has(listener)) listener();
    }
  }

  async offeredTools(caller?: Caller): Promise<OfferedToolView[]> {
    const who = caller === undefined ? undefined : principalOf(caller);
    const offered = (await this.#p.offered?.(who)) ?? [];
    return offered.flatMap((t) => {
      const spec = this.#p.registry.tool(t.name)?.spec;
      return spec === undefined ? [] : [{ ...t, spec }];
    });
  }

  async listTools(filter?: TagFilter): Promise<ToolView[]> {
    const tools = this.#p.registry.tools().filter((t) => matchesTags(t.spec.tags, filter));
    const preflights = await Promise.all(tools.map((t) => this.#p.preflight.get(t.name)));
    const served = tools.map((t, i): ToolView => {
      const d = this.#p.policy.explain({ tool: t.name, input: {} }, { action: true }).decision;
      return {
        name: t.name,
        state: 'served',
        spec: t.spec,
        instances: t.instances.map((inst) => ({
          id: inst.id,
          host: inst.host,
          version: inst.version,
          ...(inst.restarts === undefined ? {} : { restarts: inst.restarts }),
          ...(inst.capacity === undefined ? {} : { capacity: inst.capacity }),
        })),
        preflight: preflightView(preflights[i] as NonNullable<(typeof preflights)[number]>),
        policy: { outcome: d.outcome, rule: d.rule.id, reason: d.reason },
      };
    });
    return [...served, ...this.#plannedViews(filter)];
  }

  /** The planned stubs no worker serves, passing `filter`: listed, never callable. */
  #plannedViews(filter?: TagFilter): ToolView[] {
    const planned = (this.#p.planned ?? []).filter(
      (p) => this.#p.registry.tool(p.name) === undefined && matchesTags(p.tags, filter),
    );
    return planned.map((p) => {
      const d = this.#p.policy.explain({ tool: p.name, input: {} }, { action: true }).decision;
      return {
        name: p.name,
        state: 'planned',
        planned: { purpose: p.purpose, tags: [...p.tags] },
        spec: null,
        instances: [],
        preflight: {
          ok: null,
          state: 'unknown',
          detail: ['planned: the catalog lists it, no worker serves it'],
          checked_at: null,
        },
        policy: { outcome: d.outcome, rule: d.rule.id, reason: d.reason },
      };
    });
  }

  invoke(tool: string, input: unknown, caller: Caller): Promise<ToolCallReport> {
    return this.#p.gateway.invoke(tool, input, caller);
  }

  /**
   * Decides a confirmation; a planner turn that waited for it goes on. The rest of the turn
   * (`chat`) is answered to the turn's owner only: another approver (a `confirm`-only token,
   * an operator) gets the decision and the call's report, and the owner finds the rest in its
   * conversation (ADR 0063). A rejection with `stopTurn` stops that turn instead (ADR 0068).
   */
  async confirm(
    id: string,
    approve: boolean,
    caller: Caller,
    options: ConfirmOptions = {},
  ): Promise<ConfirmResponse> {
    const askedToStop = !approve && options.stopTurn === true;
    // no turn waits (an API invoke's call): a plain rejection, and nothing says otherwise
    const stopTurn = askedToStop && this.#p.agent.waitsFor(id);
    const report = await this.#p.gateway.confirm(id, approve, caller, { stopTurn });
    const decided: ConfirmResponse = { ...report, decision: approve ? 'approved' : 'rejected' };
    if (askedToStop) {
      const stopped = stopTurn ? await this.#p.agent.stop(id, report, caller) : undefined;
      const also = (stopped?.alsoRejected ?? []).map((r) => ({
        id: r.id,
        tool: r.report.tool,
        decision_id: r.report.decision_id,
      }));
      return { ...decided, stopped: stopped !== undefined, also_rejected: also };
    }
    const resumed = await this.#p.agent.resume(id, report);
    if (resumed === undefined || resumed.owner !== caller.actor) return decided;
    return { ...decided, chat: resumed.response };
  }

  pendingConfirmations(): PendingConfirmation[] {
    return this.#p.gateway.pending();
  }

  listJobs(limit?: number): JobView[] {
    return this.#p.jobs.list(limit);
  }

  job(id: string): JobView | undefined {
    return this.#p.jobs.view(id);
  }

  cancelJob(id: string, caller: Caller): Promise<JobView | undefined> {
    return this.#p.jobs.cancel(id, caller.actor);
  }

  explain(
    tool: string,
    input: unknown,
    flow?: ExplainFlow,
    principal?: Principal,
  ): PolicyExplanation {
    return this.#p.gateway.explain(tool, input, flow, principal);
  }

  /** The store's answer, with the warnings about the enforced policy (see policyWarnings). */
  async policyStatus(): Promise<PolicyStatusView> {
    const status = await this.#p.policy.status();
    return { ...status, warnings: this.policyWarnings() };
  }

  /** The enforced policy's warnings, tools no worker serves and no catalog lists among them. */
  policyWarnings(): PolicyIssue[] {
    return policyWarnings(this.#p.policy.policy, { ...this.#p.known, registry: this.#p.registry });
  }

  auditQuery(query: AuditQuery) {
    this.#readableAudit();
    return this.#p.audit.query(query);
  }

  auditCounts(filter: AuditFilter) {
    this.#readableAudit();
    return this.#p.audit.counts(filter);
  }

  onAuditAppended(listener: (seq: number) => void): () => void {
    return this.#p.auditSink.onAppended(listener);
  }

  /**
   * A read of the live log touches SQLite's memory-mapped wal-index too: with the files
   * turned read-only that could be SIGBUS, so it is refused (503) while they are.
   */
  #readableAudit(): void {
    const problem = this.#p.audit.writableProblem();
    if (problem !== undefined) {
      throw CaesarError.of('audit_unavailable', {
        what: `${problem}; it is not read either until it is writable again`,
      });
    }
  }

  async readiness(): Promise<Readiness> {
    const nats = this.#p.connection.status();
    const audit = this.#p.auditSink.status();
    const policyCheck = await this.#policyCheck();
    const model = this.#p.model;
    const problems = this.#modelProblems;
    const llm =
      model === undefined
        ? {}
        : problems.length === 0
          ? { llm: { ok: true, detail: model.choice } }
          : { llm: { ok: true, detail: model.choice, warning: problems.join('; ') } };
    return {
      ready: nats.ok && audit.ok && policyCheck.ok,
      checks: { nats, audit, policy: policyCheck, ...llm },
    };
  }

  /**
   * Ready while a policy is enforced; a file on disk that is broken or not loaded yet is a
   * warning (the last good policy still decides), naming where and what to do.
   */
  async #policyCheck(): Promise<Readiness['checks']['policy']> {
    const policy = this.#p.policy.policy;
    if (policy.denyAllReason !== null) return { ok: false, detail: policy.denyAllReason };
    const detail = `${policy.file} (sha256 ${policy.sha256.slice(0, 12)})`;
    const warning = formatPolicyWarning(await this.#p.policy.status());
    return warning === null ? { ok: true, detail } : { ok: true, detail, warning };
  }
}
