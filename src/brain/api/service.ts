import type { AuditCounts, AuditFilter, AuditQuery, AuditRecord } from '../../audit/index.js';
import type { PolicyExplanation, Principal } from '../../policy/index.js';
import type { TagFilter, ToolSpec } from '../../protocol/index.js';
import type {
  CapabilitiesView,
  Caller,
  ChatEvent,
  ChatRequest,
  ChatResponse,
  ConfirmResponse,
  ExplainFlow,
  JobView,
  PendingConfirmation,
  PolicyStatusView,
  Readiness,
  ToolCallReport,
  ToolView,
} from './contract.js';

/** A client-kept conversation: earlier turns, then the message to answer. */
export interface CompletionRequest {
  readonly history: readonly { readonly role: 'user' | 'assistant'; readonly content: string }[];
  readonly message: string;
}

export interface ChatOptions {
  readonly onEvent?: (event: ChatEvent) => void;
  /** Aborts the turn's model requests (the client went away). */
  readonly signal?: AbortSignal;
}

/**
 * A tool a client is offered now: discovered, allowed by the policy, ready, within the tag
 * filter, as a model is offered it (its card as description) with the spec it was served
 * under (MCP `tools/list`, ADR 0094).
 */
export interface OfferedToolView {
  readonly name: string;
  /** The tool card (src/brain/llm/card.ts). */
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly spec: ToolSpec;
}

/** How a confirmation is decided beyond approve or reject. */
export interface ConfirmOptions {
  /** With a rejection: stop the planner turn that waits for the call too. @default false */
  readonly stopTurn?: boolean;
}

/**
 * What the HTTP layer needs from the brain. The daemon implements it over the real parts
 * (registry, policy, audit, dispatcher, agent loop); the HTTP layer only authenticates,
 * validates, limits and maps. None of these methods throws for a tool-level failure:
 * denials, missing workers and tool errors come back inside a ToolCallReport.
 */
export interface BrainService {
  /**
   * Answers one chat message. `options.onEvent` receives the turn as it happens (text
   * deltas, tool calls and their reports) for streaming; the result is the same either way.
   */
  chat(request: ChatRequest, caller: Caller, options?: ChatOptions): Promise<ChatResponse>;
  /**
   * One turn of a conversation the client keeps (`POST /v1/chat/completions`): a new
   * session owned by the caller is seeded with `history` (user and assistant texts, oldest
   * first), then `message` is answered as in `chat`.
   */
  complete(
    request: CompletionRequest,
    caller: Caller,
    options?: ChatOptions,
  ): Promise<ChatResponse>;
  /** Every discovered tool, or those passing `filter` (`GET /v1/tools?include_tags=…`). */
  listTools(filter?: TagFilter): Promise<ToolView[]>;
  /**
   * The tools a client may call now, as a model is offered them (`POST /mcp` `tools/list`):
   * with `caller`, those the policy does not deny its principal (ADR 0096).
   */
  offeredTools(caller?: Caller): Promise<OfferedToolView[]>;
  /**
   * Calls `listener` each time the tools `offeredTools` answers change (a worker came, went,
   * changed its spec, became ready; the policy changed), at most one sweep late. Returns the
   * unsubscribe. For MCP's `notifications/tools/list_changed`.
   */
  onToolsChanged(listener: () => void, caller?: Caller): () => void;
  /** `GET /v1/capabilities`: what works offline now, what could, and the steps (ADR 0074). */
  capabilities(): Promise<CapabilitiesView>;
  /** Runs one tool call through the gate. */
  invoke(tool: string, input: unknown, caller: Caller): Promise<ToolCallReport>;
  /**
   * Approves (runs once) or rejects a call waiting for confirmation; a rejection with
   * `stopTurn` also stops the planner turn that waits for it (ADR 0068).
   * @throws ConfirmationNotFoundError when the id is unknown, used, expired or voided.
   */
  confirm(
    id: string,
    approve: boolean,
    caller: Caller,
    options?: ConfirmOptions,
  ): Promise<ConfirmResponse>;
  /** The calls waiting for a human, oldest first (`GET /v1/confirmations`). */
  pendingConfirmations(): PendingConfirmation[];
  /**
   * What the policy would decide about a call, counting nothing; with `flow`, as a model's
   * call after its turn read what `flow` says, the tool's effects taken from its live spec.
   */
  explain(
    tool: string,
    input: unknown,
    flow?: ExplainFlow,
    principal?: Principal,
  ): PolicyExplanation;
  /** `GET /v1/policy`: the enforced policy, the file on disk, the last refused reload. */
  policyStatus(): Promise<PolicyStatusView>;
  auditQuery(query: AuditQuery): AuditRecord[];
  auditCounts(filter: AuditFilter): AuditCounts;
  /**
   * Calls `listener` with the seq of each audit row once it is committed (the live tail,
   * `GET /v1/events`, reads the rows themselves with `auditQuery`). Returns the unsubscribe.
   */
  onAuditAppended(listener: (seq: number) => void): () => void;
  readiness(): Promise<Readiness>;
  /** `GET /v1/jobs`: the newest jobs first (ADR 0098). */
  listJobs(limit?: number): JobView[];
  /** `GET /v1/jobs/{id}`; undefined for an unknown id. */
  job(id: string): JobView | undefined;
  /**
   * `POST /v1/jobs/{id}/cancel`: off the queue, or its running handler's AbortSignal fired.
   * Undefined for an unknown id; an ended job is answered as it is.
   */
  cancelJob(id: string, caller: Caller): Promise<JobView | undefined>;
}
