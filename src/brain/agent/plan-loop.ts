import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log/index.js';
import { LlmError } from '../llm/types.js';
import type { AuditSink } from '../gateway/index.js';
import type { Caller, ChatEvent, ConfirmationTicket, ToolCallReport } from '../api/index.js';
import { PlannerUnavailableError } from './errors.js';
import type { PausedTurns } from './paused.js';
import type {
  CallGate,
  CapabilityReport,
  Conversations,
  ConversationTurn,
  PlanRound,
  PlanStep,
  PlannedCall,
  Planner,
  PlannerTool,
  SessionRef,
} from './ports.js';
import { cancelledReply, capReply, pausedReply, unavailableReply } from './replies.js';
import {
  labelOfReport,
  newTurnBudget,
  planRound,
  readItemsOf,
  recordOf,
  type RoundPlan,
  type SpecOf,
  type TurnBudget,
} from './turn-calls.js';
import type { ReadItem } from '../gateway/provenance.js';

/** One turn in progress: who asks, in which session, and where its events go. */
export interface TurnContext {
  /** The conversation, named by its owner (the caller who opened it) and its id. */
  readonly session: SessionRef;
  readonly caller: Caller;
  /** Fires when the client left: the turn stops asking the model and ends as cancelled. */
  readonly signal: AbortSignal;
  readonly emit: (event: ChatEvent) => void;
}

/** How a planner turn ended. */
export interface PlanOutcome {
  readonly reply: string;
  readonly calls: ToolCallReport[];
  readonly iterations: number;
  readonly capped: boolean;
  /** The reply asks a human to approve a call; it is not kept in the conversation. */
  readonly paused: boolean;
  /**
   * The client left before the answer (`signal` fired): no model was asked after that, the
   * reply is the brain's note of it and is not kept in the conversation.
   */
  readonly cancelled: boolean;
}

interface PlanLoopDeps {
  readonly planner: Planner;
  readonly gate: CallGate;
  readonly conversations: Conversations;
  readonly audit: AuditSink;
  readonly paused: PausedTurns;
  readonly plannerTools: () => Promise<readonly PlannerTool[]> | readonly PlannerTool[];
  readonly maxIterations: number;
  /** Calls that run per planning round (`llm.max_calls_per_round`). */
  readonly maxCallsPerRound: number;
  /** Calls that run per turn, over all its rounds (`llm.max_calls_per_turn`). */
  readonly maxCallsPerTurn: number;
  /** A tool's spec, to label results stored before labels existed; null: unknown. */
  readonly specOf: SpecOf;
  readonly confirmationTtlMs: number;
  /** What the local rules can do right now, and what not, for the "no model" reply. */
  readonly capabilities: () => Promise<CapabilityReport>;
  readonly now: () => Date;
  /** The IANA zone of the clock line the planner sees; asked once a round runs. */
  readonly timeZone: () => string;
  readonly logger: Logger;
}

/**
 * The planner's rounds: ask the model, run the calls it asks for (all of one round at once,
 * each through the gate with its own decision id), hand the results back, until it replies
 * or `maxIterations` rounds were asked. Calls the model still asks for in the last round do
 * not run, and the reply names them. A call waiting for confirmation pauses the turn
 * (see PausedTurns). Each round is audited as `llm.called`.
 *
 * What the model asks for is data (ADR 0065): a tool name it was not offered is refused
 * before anything else sees it; at most `maxCallsPerRound` calls run per round and
 * `maxCallsPerTurn` per turn; and every call goes to the gate with what the model had read
 * (the labels of the tool results in the history it planned from), which the policy's flow
 * rules judge.
 */
export class PlanLoop {
  readonly #d: PlanLoopDeps;

  constructor(deps: PlanLoopDeps) {
    this.#d = deps;
  }

  /**
   * Runs rounds `from`..`maxIterations`; `made` holds calls already made in this turn and
   * `budget` their count (kept across a pause).
   */
  async run(
    turn: TurnContext,
    from = 1,
    made: ToolCallReport[] = [],
    budget: TurnBudget = newTurnBudget(),
  ): Promise<PlanOutcome> {
    const max = this.#d.maxIterations;
    const ended = { capped: false, paused: false, cancelled: false };
    for (let iteration = from; iteration <= max; iteration++) {
      // the client left while the last round's calls ran: nobody waits for another round
      if (turn.signal.aborted) return cancelled(made, iteration - 1);
      const asked = await this.#ask(turn, iteration);
      if ('cancelled' in asked) return cancelled(made, iteration);
      if ('unavailable' in asked) {
        const reply = said(turn, unavailableReply(asked.unavailable, await this.#d.capabilities()));
        return { ...ended, reply, calls: made, iterations: iteration };
      }
      const { step } = asked;
      if (step.type === 'reply') {
        await this.#auditRound(turn, iteration, 'ok', 0, step.round, asked.started);
        return { ...ended, reply: step.text, calls: made, iterations: iteration };
      }
      const plan = planRound(step.calls, asked.offered, asked.names, budget, {
        perRound: this.#d.maxCallsPerRound,
        perTurn: this.#d.maxCallsPerTurn,
      });
      const calls = step.calls.length;
      await this.#auditRound(turn, iteration, 'ok', calls, step.round, asked.started, plan);
      if (iteration === max) {
        const shown = step.calls.slice(0, this.#d.maxCallsPerRound);
        const reply = said(turn, capReply(max, made, shown, calls - shown.length));
        return { ...ended, reply, calls: made, iterations: max, capped: true };
      }
      if (step.text.trim() !== '') this.#d.conversations.appendAssistant(turn.session, step.text);
      const read = readItemsOf(asked.history, this.#d.specOf);
      const reports = await this.#runCalls(turn, step.calls, plan, read, budget);
      made.push(...reports);
      const tickets = this.#pauseIfWaiting(turn, iteration, step.calls, reports, budget);
      if (tickets.length > 0) {
        const reply = said(turn, pausedReply(tickets));
        return { ...ended, reply, calls: made, iterations: iteration, paused: true };
      }
    }
    // unreachable: the last round always returns above
    return { ...ended, reply: capReply(max, made, []), calls: made, iterations: max, capped: true };
  }

  /**
   * One round: the model's step with the history it planned from and the tools it was
   * offered, or why no model answered (audited as `llm.called` here; an answer is audited
   * by the caller, once it knows which calls run).
   */
  async #ask(turn: TurnContext, iteration: number): Promise<Asked> {
    const tools = await this.#d.plannerTools();
    const history = this.#d.conversations.history(turn.session);
    const started = performance.now();
    try {
      const step = await this.#d.planner.plan({
        history,
        tools,
        iteration,
        signal: turn.signal,
        onText: (delta) => turn.emit({ type: 'text', delta }),
        // a stream that broke off is asked again: say so rather than repeat the words silently
        onTextReset: () =>
          turn.emit({ type: 'text', delta: '\n[the answer broke off; asking again]\n' }),
        now: this.#d.now(),
        timeZone: this.#d.timeZone(),
      });
      // a tool the registry knows is no invention, offered or not: the policy judges it
      const names = new Set(tools.map((t) => t.name));
      const offered = { has: (name: string) => names.has(name) || this.#d.specOf(name) !== null };
      return { step, history, offered, names, started };
    } catch (err) {
      if (err instanceof LlmError && err.kind === 'aborted') {
        // the client left: the request was aborted, and is neither retried nor failed over
        await this.#auditRound(turn, iteration, 'error', 0, undefined, started);
        return { cancelled: true } as const;
      }
      if (!(err instanceof PlannerUnavailableError)) throw err;
      const round = { attempts: err.attempts };
      await this.#auditRound(turn, iteration, 'error', 0, round, started);
      return { unavailable: err.message };
    }
  }

  /**
   * Runs the round's calls the plan lets through at once, each with what the model had
   * read; answers the refused ones without the gate; writes the conversation's tool turns
   * in the model's order, each labelled. Calls the plan dropped leave no turn.
   */
  async #runCalls(
    turn: TurnContext,
    calls: readonly PlannedCall[],
    plan: RoundPlan,
    read: readonly ReadItem[],
    budget: TurnBudget,
  ): Promise<ToolCallReport[]> {
    const origin = { kind: 'model', read, turnCounts: budget.turnCounts } as const;
    const answered = calls.length - plan.dropped;
    const reports = await Promise.all(
      calls.slice(0, answered).map((call, i) => {
        const refused = plan.refused.get(i);
        if (refused === undefined) return this.#runCall(turn, call, origin);
        turn.emit({ type: 'tool_call', call_id: call.id, tool: refused.tool, input: call.input });
        turn.emit({ type: 'tool_result', call_id: call.id, report: refused });
        return Promise.resolve(refused);
      }),
    );
    reports.forEach((report, i) => {
      const record = recordOf(report, labelOfReport(report), calls[i]!.id);
      this.#d.conversations.appendTool(turn.session, record);
    });
    return reports;
  }

  async #runCall(
    turn: TurnContext,
    call: PlannedCall,
    origin: Parameters<CallGate['invoke']>[3],
  ): Promise<ToolCallReport> {
    turn.emit({ type: 'tool_call', call_id: call.id, tool: call.tool, input: call.input });
    const report =
      call.problem !== undefined || call.input === undefined
        ? malformed(call)
        : await this.#d.gate.invoke(call.tool, call.input, turn.caller, origin);
    turn.emit({ type: 'tool_result', call_id: call.id, report });
    return report;
  }

  /** Keeps the turn for later when a call of this round waits for a human. */
  #pauseIfWaiting(
    turn: TurnContext,
    iteration: number,
    calls: readonly PlannedCall[],
    reports: readonly ToolCallReport[],
    budget: TurnBudget,
  ): ConfirmationTicket[] {
    const waiting = new Map<string, string>();
    const tickets: ConfirmationTicket[] = [];
    reports.forEach((r, i) => {
      if (r.outcome !== 'confirmation_required' || r.confirmation === undefined) return;
      waiting.set(r.confirmation.id, calls[i]!.id);
      tickets.push(r.confirmation);
    });
    if (tickets.length === 0) return [];
    this.#d.paused.add({
      session: turn.session,
      caller: turn.caller,
      iteration,
      waiting,
      budget,
      expiresAt: Date.now() + this.#d.confirmationTtlMs,
    });
    return tickets;
  }

  async #auditRound(
    turn: TurnContext,
    iteration: number,
    outcome: 'ok' | 'error',
    toolCalls: number,
    round: Partial<PlanRound> | undefined,
    started: number,
    plan?: RoundPlan,
  ): Promise<void> {
    try {
      await this.#d.audit.append({
        type: 'llm.called',
        actor: turn.caller.actor,
        outcome,
        sessionId: turn.session.id,
        payload: {
          iteration,
          ...(round?.provider === undefined ? {} : { provider: round.provider }),
          ...(round?.model === undefined ? {} : { model: round.model }),
          usage: { input: round?.inputTokens ?? 0, output: round?.outputTokens ?? 0 },
          duration_ms: Math.round((round?.durationMs ?? performance.now() - started) * 1000) / 1000,
          tool_calls: toolCalls,
          // calls that never reached the gate: counts, and invented names clamped and escaped
          ...(plan === undefined || plan.refused.size + plan.dropped === 0
            ? {}
            : { refused_calls: plan.audit }),
          attempts: (round?.attempts ?? []).map((a) => ({
            provider: a.provider,
            model: a.model,
            outcome: a.outcome,
            ...(a.status === undefined ? {} : { status: a.status }),
            duration_ms: Math.round(a.durationMs * 1000) / 1000,
          })),
        },
      });
    } catch (err) {
      this.#d.logger.error({ err, sessionId: turn.session.id }, 'could not audit llm.called');
    }
  }
}

/** A round asked: the model's step and what it planned from, or why there is none. */
type Asked =
  | {
      readonly step: PlanStep;
      readonly history: readonly ConversationTurn[];
      /** Tool names that are no invention: offered, or known to the registry. */
      readonly offered: { has(name: string): boolean };
      /** The names offered, for the refusal that lists them. */
      readonly names: ReadonlySet<string>;
      readonly started: number;
    }
  | { readonly cancelled: true }
  | { readonly unavailable: string };

/**
 * A turn whose client left: its note is the reply (for the audit row; nobody reads the
 * answer), and no text event is sent, since nobody reads the stream either.
 */
function cancelled(made: ToolCallReport[], iterations: number): PlanOutcome {
  const reply = cancelledReply();
  return { reply, calls: made, iterations, capped: false, paused: false, cancelled: true };
}

/** A reply the brain wrote (not the model): sent as one text event, since nothing streamed it. */
function said(turn: TurnContext, reply: string): string {
  turn.emit({ type: 'text', delta: reply });
  return reply;
}

/**
 * A call the model wrote so that it cannot be made (arguments that are not a JSON object):
 * answered as `invalid_input` so the model can correct it on the next round. Never reaches
 * the gate; the round's `llm.called` row records it.
 */
function malformed(call: PlannedCall): ToolCallReport {
  const message = `the arguments of ${call.tool} could not be read: ${call.problem ?? 'no arguments'}`;
  return {
    tool: call.tool,
    input: call.input,
    outcome: 'failed',
    reason: message,
    error: { code: 'invalid_input', message, retryable: false },
    decision_id: randomUUID(),
    duration_ms: 0,
  };
}
