import type { Caller, ToolCallReport } from '../api/index.js';
import type { CallOrigin, ContentLabel } from '../gateway/provenance.js';

/**
 * The seams of the agent loop. The daemon plugs in the real parts: the ToolGateway, the
 * intent set from `config/intents.yaml`, the SQLite conversation store, and (from a later
 * issue) an LLM planner.
 */

export interface CallGate {
  /** `origin`: who asked (a local rule, or a model after what it read); @default a token itself */
  invoke(
    tool: string,
    input: unknown,
    caller: Caller,
    origin?: CallOrigin,
  ): Promise<ToolCallReport>;
  /**
   * Rejects a call still waiting for confirmation because `by` stopped its turn by
   * rejecting `stoppedWith` (ADR 0068); undefined when it no longer waits.
   */
  rejectStopped(
    confirmationId: string,
    by: Caller,
    stoppedWith: string,
  ): Promise<ToolCallReport | undefined>;
}

/** The outcome of a call as an intent's reply template sees it. */
export interface IntentOutcome {
  /** The callable judged, which may be the other name of the rule's (ADR 0093). */
  tool?: string;
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
  /** What the rules can do, with an example each where the file gives one. */
  capabilities(): readonly Capability[];
}

/** A thing the brain can do offline: `do arithmetic and unit conversions`, `what is 17 * 23`. */
export interface Capability {
  readonly what: string;
  readonly example?: string;
}

/** A thing the local rules could do that does not work now, and what would make it work. */
export interface MissingCapability extends Capability {
  /** The first step, in a few words for a chat reply: `start the web_search tool`. */
  readonly step: string;
  /** One per problem: `web_search is not running; start it: \`caesar legion serve-tool …\``. */
  readonly steps: readonly string[];
}

/** One thing that keeps a tool from working, and its step, in a reply's words. */
export interface ToolStep {
  readonly kind: 'start' | 'grant' | 'configure' | 'fix';
  /** `web_search is not running; start it: \`caesar legion serve-tool web_search …\``. */
  readonly text: string;
}

/** What the local rules can do right now (discovered, allowed, ready), and what they cannot. */
export interface CapabilityReport {
  readonly ready: readonly Capability[];
  readonly missing: readonly MissingCapability[];
  /**
   * Tools the catalog lists as planned (ADR 0090) and no worker serves: named, never
   * callable. @default none
   */
  readonly planned?: readonly PlannedCapability[];
}

/** A planned tool: its name and the catalog's one sentence of what it is for. */
export interface PlannedCapability {
  readonly tool: string;
  readonly purpose: string;
}

/** A tool-call record kept in the conversation. */
export interface ToolTurnRecord {
  name: string;
  decision_id: string;
  /** The model's id for the call; absent for calls an intent rule made. */
  call_id?: string;
  outcome: string;
  input?: unknown;
  result?: unknown;
  error?: unknown;
  /** What the result is, for the flow rules (ADR 0065); absent on records made before them. */
  label?: ContentLabel;
}

export interface ConversationTurn {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly tool?: ToolTurnRecord;
}

/**
 * A conversation as its owner names it: the owner (the actor, an API token name) and the
 * session id it sends. The same id under two owners is two conversations (ADR 0063).
 */
export interface SessionRef {
  readonly actor: string;
  readonly id: string;
}

export interface Conversations {
  /**
   * The session to use: `actor`'s session `id` when it exists; a new one when `id` is
   * undefined, or unknown to `actor` and `create` is set (then under `id`).
   */
  ensureSession(id: string | undefined, actor: string, create?: boolean): SessionRef;
  appendUser(session: SessionRef, text: string): void;
  appendAssistant(session: SessionRef, text: string): void;
  appendTool(session: SessionRef, record: ToolTurnRecord): void;
  history(session: SessionRef): readonly ConversationTurn[];
}

/**
 * The ends of jobs a conversation submitted, not yet told to it (ADR 0100): each taken once.
 * A report's record goes into the conversation before the turn's message, so the turn reads
 * it (labelled as the job's tool's output); its line opens the turn's reply.
 */
export interface JobEndReports {
  /**
   * `clientKept`: the session is one request of a conversation its client keeps; the ends
   * of jobs any such request of the same token submitted are told to it.
   */
  take(
    session: SessionRef,
    clientKept: boolean,
  ): readonly { record: ToolTurnRecord; line: string }[];
}

/** A tool the planner may call: discovered, allowed by the policy, passing its preflight. */
export interface PlannerTool {
  readonly name: string;
  /** The tool card: what the model reads about the tool (src/brain/llm/card.ts). */
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/** One call the model asked for in a round. */
export interface PlannedCall {
  /** The model's call id; the result goes back under it. */
  readonly id: string;
  readonly tool: string;
  /** The parsed arguments; undefined when they did not parse (`problem` says why). */
  readonly input?: unknown;
  /** Set when the call cannot be made as written (arguments that are not a JSON object). */
  readonly problem?: string;
}

/** One request to a model endpoint while planning a round: the answer, or why not. */
export interface PlanAttempt {
  readonly provider: string;
  readonly model: string;
  /** `ok`, or the failure's kind (`rate_limited`, `server`, `timeout`, `connect`, `auth`, ...). */
  readonly outcome: string;
  readonly status?: number;
  readonly durationMs: number;
  readonly message?: string;
}

/** What answering one round cost: the model that answered, tokens, time, and the way there. */
export interface PlanRound {
  readonly provider: string;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
  /** Every request made for this round, retries and failovers included, the answer last. */
  readonly attempts: readonly PlanAttempt[];
}

export type PlanStep =
  | { readonly type: 'reply'; readonly text: string; readonly round?: PlanRound }
  | {
      readonly type: 'tool_calls';
      /** Words the model wrote before its calls (often empty). */
      readonly text: string;
      readonly calls: readonly PlannedCall[];
      readonly round?: PlanRound;
    };

/**
 * A round of `llm.mode: plan_first` (ADR 0069): `plan` asks for the whole plan from the
 * conversation's words alone; `reply` asks for the answer once the plan ran, offering no
 * tools.
 */
export type PlanStage = 'plan' | 'reply';

export interface PlanRequest {
  /** The conversation so far, the new user message last (tool turns carry `call_id`). */
  readonly history: readonly ConversationTurn[];
  readonly tools: readonly PlannerTool[];
  /** 1 for the first round. */
  readonly iteration: number;
  /** The round's role in plan_first; absent in react (the model plans as it reads). */
  readonly stage?: PlanStage;
  readonly signal: AbortSignal;
  /** Set: stream the model's text, a delta at a time. */
  readonly onText?: (delta: string) => void;
  /** The text streamed so far is void: the answer broke off and is being asked again. */
  readonly onTextReset?: () => void;
  /** The moment and the zone the user lives in, for "today" and "tomorrow". */
  readonly now?: Date;
  readonly timeZone?: string;
}

/** The LLM seam: one planning round. */
export interface Planner {
  readonly name: string;
  /**
   * @throws PlannerUnavailableError when no configured model could answer.
   * @throws anything when `request.signal` fired: the agent reads the signal, not the error.
   */
  plan(request: PlanRequest): Promise<PlanStep>;
}
