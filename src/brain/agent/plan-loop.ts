import type { ConfirmationTicket, ToolCallReport } from '../api/index.js';
import type { PausedTurn } from './paused.js';
import type { CallGate, PlannedCall } from './ports.js';
import { capReply, pausedReply, unavailableReply } from './replies.js';
import { cancelledOutcome, malformed, ModelRounds, said } from './rounds.js';
import type { PlanOutcome, TurnContext, TurnLoop, TurnLoopDeps } from './rounds.js';
import {
  appendCallRecord,
  newTurnBudget,
  planRound,
  readItemsOf,
  type RoundPlan,
  type TurnBudget,
} from './turn-calls.js';
import type { ReadItem } from '../gateway/provenance.js';

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
export class PlanLoop implements TurnLoop {
  readonly #d: TurnLoopDeps;
  readonly #rounds: ModelRounds;

  constructor(deps: TurnLoopDeps) {
    this.#d = deps;
    this.#rounds = new ModelRounds(deps);
  }

  /** The rest of a paused turn: the rounds after the one whose calls waited. */
  resume(turn: TurnContext, paused: PausedTurn, decided: ToolCallReport): Promise<PlanOutcome> {
    return this.run(turn, paused.iteration + 1, [decided], paused.budget);
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
      if (turn.signal.aborted) return cancelledOutcome(made, iteration - 1);
      const tools = await this.#d.plannerTools(turn.caller);
      const history = this.#d.conversations.history(turn.session);
      const asked = await this.#rounds.ask(turn, { iteration, history, tools });
      if ('cancelled' in asked) return cancelledOutcome(made, iteration);
      if ('unavailable' in asked) {
        const reply = said(turn, unavailableReply(asked.unavailable, await this.#d.capabilities()));
        return { ...ended, reply, calls: made, iterations: iteration };
      }
      const { step } = asked;
      if (step.type === 'reply') {
        await this.#rounds.audit(turn, {
          iteration,
          outcome: 'ok',
          toolCalls: 0,
          round: step.round,
          started: asked.started,
        });
        return { ...ended, reply: step.text, calls: made, iterations: iteration };
      }
      const plan = planRound(step.calls, asked.offered, asked.names, budget, {
        perRound: this.#d.maxCallsPerRound,
        perTurn: this.#d.maxCallsPerTurn,
      });
      const calls = step.calls.length;
      await this.#rounds.audit(turn, {
        iteration,
        outcome: 'ok',
        toolCalls: calls,
        round: step.round,
        started: asked.started,
        plan,
      });
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
      appendCallRecord(this.#d.conversations, turn.session, report, calls[i]!.id);
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
}
