import { silentLogger, type Logger } from '../../log/index.js';
import type { Caller, ChatRequest, ChatResponse, ToolCallReport } from '../api/index.js';
import type { AuditSink } from '../gateway/index.js';
import type {
  CallGate,
  Conversations,
  IntentHit,
  IntentMatcher,
  Planner,
  PlannerTool,
} from './ports.js';
import { capReply, offlineReply } from './replies.js';

export interface AgentOptions {
  gate: CallGate;
  intents: IntentMatcher;
  conversations: Conversations;
  audit: AuditSink;
  /** Absent: no LLM is configured; unmatched messages get the offline reply. */
  planner?: Planner;
  /** The tools a planner may call, computed per round. */
  plannerTools?: () => PlannerTool[];
  /** Planner rounds per message. @default 5 */
  maxIterations?: number;
  /** IANA zone for "today" and "this week". @default the system's zone */
  timeZone?: string;
  now?: () => Date;
  onChat?: (planner: ChatResponse['planner'], durationMs: number) => void;
  logger?: Logger;
}

/**
 * The agent loop: local intent rules first (offline, deterministic), then the planner when one
 * is configured, at most `maxIterations` rounds. Every tool call goes through the gate;
 * every answered message ends in a `chat.completed` audit row, capped or not.
 */
export class Agent {
  readonly #o: AgentOptions;
  readonly #log: Logger;
  readonly #maxIterations: number;
  readonly #timeZone: string;

  constructor(options: AgentOptions) {
    this.#o = options;
    this.#log = options.logger ?? silentLogger();
    this.#maxIterations = options.maxIterations ?? 5;
    this.#timeZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  }

  /**
   * Answers one message in a session (a new one when `session_id` is absent).
   * @throws the conversation store's SessionNotFoundError for an unknown or foreign session.
   */
  async chat(request: ChatRequest, caller: Caller): Promise<ChatResponse> {
    const started = performance.now();
    const sessionId = this.#o.conversations.ensureSession(request.session_id, caller.actor);
    this.#o.conversations.appendUser(sessionId, request.message);
    const inSession: Caller = { ...caller, sessionId };
    const turn = await this.#answer(request.message, sessionId, inSession);
    this.#o.conversations.appendAssistant(sessionId, turn.reply);
    const response: ChatResponse = { session_id: sessionId, ...turn };
    const durationMs = performance.now() - started;
    await this.#audit(request.message, response, inSession, durationMs);
    this.#o.onChat?.(response.planner, durationMs);
    return response;
  }

  async #answer(message: string, sessionId: string, caller: Caller) {
    const now = (this.#o.now ?? (() => new Date()))();
    const hit = this.#o.intents.match(message, { now, timeZone: this.#timeZone });
    if (hit) {
      this.#log.debug({ intent: hit.intent, tool: hit.tool }, 'local intent matched');
      return this.#intent(hit, sessionId, caller);
    }
    if (this.#o.planner) return this.#plan(this.#o.planner, sessionId, caller);
    return {
      reply: offlineReply(this.#o.intents.describe()),
      tool_calls: [],
      iterations: 0,
      capped: false,
      planner: 'none' as const,
    };
  }

  /**
   * Runs a matched rule: its lookups first (each through the gate, stopping at the first
   * that does not answer), then its call, unless a lookup ended the turn with a question.
   */
  async #intent(matched: IntentHit, sessionId: string, caller: Caller) {
    const calls: ToolCallReport[] = [];
    let hit = matched;
    if (hit.lookups.length > 0) {
      for (const lookup of hit.lookups) {
        const report = await this.#call(lookup.tool, lookup.input, sessionId, caller);
        calls.push(report);
        if (report.outcome !== 'ok') break;
      }
      const next = hit.resolve(calls);
      if ('reply' in next) return this.#intentTurn(next.reply, calls);
      hit = next;
    }
    const report = await this.#call(hit.tool, hit.input, sessionId, caller);
    calls.push(report);
    return this.#intentTurn(hit.render(report), calls);
  }

  #intentTurn(reply: string, calls: ToolCallReport[]) {
    return {
      reply,
      tool_calls: calls,
      iterations: 1,
      capped: false,
      planner: 'intent' as const,
    };
  }

  async #plan(planner: Planner, sessionId: string, caller: Caller) {
    const calls: ToolCallReport[] = [];
    const controller = new AbortController();
    for (let iteration = 1; iteration <= this.#maxIterations; iteration++) {
      const step = await planner.plan({
        history: this.#o.conversations.history(sessionId),
        tools: this.#o.plannerTools?.() ?? [],
        iteration,
        signal: controller.signal,
      });
      if (step.type === 'reply') {
        return {
          reply: step.text,
          tool_calls: calls,
          iterations: iteration,
          capped: false,
          planner: 'llm' as const,
        };
      }
      for (const call of step.calls)
        calls.push(await this.#call(call.tool, call.input, sessionId, caller));
    }
    return {
      reply: capReply(this.#maxIterations, calls),
      tool_calls: calls,
      iterations: this.#maxIterations,
      capped: true,
      planner: 'llm' as const,
    };
  }

  async #call(tool: string, input: unknown, sessionId: string, caller: Caller) {
    const report = await this.#o.gate.invoke(tool, input, caller);
    this.#o.conversations.appendTool(sessionId, {
      name: tool,
      decision_id: report.decision_id,
      outcome: report.outcome,
      input,
      ...(report.result !== undefined ? { result: report.result } : {}),
      ...(report.error !== undefined ? { error: report.error } : {}),
    });
    return report;
  }

  async #audit(message: string, r: ChatResponse, caller: Caller, durationMs: number) {
    try {
      await this.#o.audit.append({
        type: 'chat.completed',
        actor: caller.actor,
        outcome: r.capped ? 'error' : 'ok',
        sessionId: r.session_id,
        payload: {
          message,
          reply: r.reply,
          iterations: r.iterations,
          capped: r.capped,
          planner: r.planner,
          tool_calls: r.tool_calls.map((c) => ({
            tool: c.tool,
            decision_id: c.decision_id,
            outcome: c.outcome,
          })),
          duration_ms: Math.round(durationMs * 1000) / 1000,
        },
      });
    } catch (err) {
      // the calls themselves were audited (or refused) by the gate; the reply still goes out
      this.#log.error({ err, sessionId: r.session_id }, 'could not audit chat.completed');
    }
  }
}
