import type { Caller, ToolCallReport } from '../api/index.js';

/**
 * The seams of the agent loop. The daemon plugs in the real parts: the ToolGateway, the
 * intent set from `config/intents.yaml`, the SQLite conversation store, and (from a later
 * issue) an LLM planner.
 */

export interface CallGate {
  invoke(tool: string, input: unknown, caller: Caller): Promise<ToolCallReport>;
}

/** The outcome of a call as an intent's reply template sees it. */
export interface IntentOutcome {
  outcome: ToolCallReport['outcome'];
  result?: unknown;
  reason?: string;
  error?: { code: string; message: string };
  confirmation?: { id: string; summary: string; expires_at: string };
}

export interface IntentHit {
  readonly intent: string;
  readonly tool: string;
  /** Complete only once `lookups` is empty. */
  readonly input: unknown;
  /** Calls that fill the rule's entity slots first (`ha_entities`), in order. */
  readonly lookups: readonly { readonly tool: string; readonly input: unknown }[];
  /** The complete hit from the lookups' outcomes, or the reply that ends the turn. */
  resolve(outcomes: readonly IntentOutcome[]): IntentHit | { readonly reply: string };
  render(outcome: IntentOutcome): string;
}

export interface IntentMatcher {
  match(message: string, ctx: { now: Date; timeZone: string }): IntentHit | undefined;
  /** One line per thing the rules can do, with an example. */
  describe(): string[];
}

/** A tool-call record kept in the conversation. */
export interface ToolTurnRecord {
  name: string;
  decision_id: string;
  outcome: string;
  input?: unknown;
  result?: unknown;
  error?: unknown;
}

export interface ConversationTurn {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly tool?: ToolTurnRecord;
}

export interface Conversations {
  /** The session to use: `id` when it exists and belongs to `actor`, else a new one. */
  ensureSession(id: string | undefined, actor: string): string;
  appendUser(sessionId: string, text: string): void;
  appendAssistant(sessionId: string, text: string): void;
  appendTool(sessionId: string, record: ToolTurnRecord): void;
  history(sessionId: string): readonly ConversationTurn[];
}

/** A tool the planner may call: discovered, and not denied outright by the policy. */
export interface PlannerTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

export type PlanStep =
  | { readonly type: 'reply'; readonly text: string }
  | { readonly type: 'tool_calls'; readonly calls: readonly { tool: string; input: unknown }[] };

export interface PlanRequest {
  /** The conversation so far, the new user message last. */
  readonly history: readonly ConversationTurn[];
  readonly tools: readonly PlannerTool[];
  /** 1 for the first round. */
  readonly iteration: number;
  readonly signal: AbortSignal;
}

/** The LLM seam: one planning round. Providers arrive in a later issue. */
export interface Planner {
  readonly name: string;
  plan(request: PlanRequest): Promise<PlanStep>;
}
