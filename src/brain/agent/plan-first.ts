import { randomUUID } from 'node:crypto';
import type { ToolCallReport } from '../api/index.js';
import type { PausedTurn, PlanProgress } from './paused.js';
import { fillPlaceholders, stepResultOf } from './placeholders.js';
import { planContext } from './plan-context.js';
import type { ConversationTurn, PlannedCall } from './ports.js';
import { afterPlanReply, pausedReply, unavailableReply } from './replies.js';
import {
  cancelledOutcome,
  malformed,
  ModelRounds,
  said,
  unmadeCall,
  type PlanOutcome,
  type TurnContext,
  type TurnLoop,
  type TurnLoopDeps,
} from './rounds.js';
import { appendCallRecord, newTurnBudget, planRound, type TurnBudget } from './turn-calls.js';

/** plan_first's rounds: the plan, then the reply. */
const PLAN_ROUND = 1;
const REPLY_ROUND = 2;

const ENDED = { capped: false, paused: false, cancelled: false } as const;

/**
 * `llm.mode: plan_first` (ADR 0069; plan-then-execute, Beurer-Kellner et al. 2025):
 *
 * 1. **The plan.** The model is asked once for every call the message needs, from the
 *    conversation's words alone (`planContext`: no tool result of this turn or an earlier
 *    one). Its calls are sorted by the same caps and invented-name refusal as a react round.
 * 2. **The run.** The brain makes the calls in the model's order, one after the other. A call
 *    may take a value from an earlier call's result through a placeholder
 *    (`{"$from": 1, "path": "/results/0/url"}`, see placeholders.ts); one that cannot be
 *    filled is that call's `invalid_input`. A call goes to the gate having read nothing but
 *    the results its values came from, so the policy's flow rules judge the data flow: a call
 *    decided before anything was read is not held for what the turn read, while a lock
 *    unlocked with a value taken from a web page still is. A call that waits for a human
 *    pauses the plan there; deciding it goes on with the rest.
 * 3. **The reply.** The model is asked for the answer with the results and no tools. A call
 *    it still asks for is not run: the reply names it and `llm.called` counts it, so nothing a
 *    result says can add a call.
 */
export class PlanFirstLoop implements TurnLoop {
  readonly #d: TurnLoopDeps;
  readonly #rounds: ModelRounds;

  constructor(deps: TurnLoopDeps) {
    this.#d = deps;
    this.#rounds = new ModelRounds(deps);
  }

  async run(turn: TurnContext): Promise<PlanOutcome> {
    if (turn.signal.aborted) return cancelledOutcome([], 0);
    const tools = await this.#d.plannerTools(turn.caller);
    const full = this.#d.conversations.history(turn.session);
    const history = planContext(full, this.#d.specOf);
    const asked = await this.#rounds.ask(turn, {
      iteration: PLAN_ROUND,
      history,
      tools,
      stage: 'plan',
    });
    if ('cancelled' in asked) return cancelledOutcome([], PLAN_ROUND);
    if ('unavailable' in asked) return this.#unavailable(turn, asked.unavailable, [], PLAN_ROUND);
    const { step } = asked;
    const row = { iteration: PLAN_ROUND, outcome: 'ok', stage: 'plan' } as const;
    if (step.type === 'reply') {
      await this.#rounds.audit(turn, {
        ...row,
        toolCalls: 0,
        round: step.round,
        started: asked.started,
      });
      return { ...ENDED, reply: step.text, calls: [], iterations: PLAN_ROUND };
    }
    const budget = newTurnBudget();
    const plan = planRound(step.calls, asked.offered, asked.names, budget, {
      perRound: this.#d.maxCallsPerRound,
      perTurn: this.#d.maxCallsPerTurn,
    });
    await this.#rounds.audit(turn, {
      ...row,
      toolCalls: step.calls.length,
      round: step.round,
      started: asked.started,
      plan,
    });
    if (step.text.trim() !== '') this.#d.conversations.appendAssistant(turn.session, step.text);
    const calls = uniqueCallIds(step.calls, full);
    return this.#execute(turn, { calls, plan, held: 0, done: new Map() }, [], budget);
  }

  /** The rest of a plan that waited for a human, from the step after the one decided. */
  resume(turn: TurnContext, paused: PausedTurn, decided: ToolCallReport): Promise<PlanOutcome> {
    const progress = paused.plan;
    if (progress === undefined) return this.#reply(turn, [decided]);
    progress.done.set(progress.held, stepResultOf(decided));
    return this.#execute(turn, progress, [decided], paused.budget);
  }

  /**
   * Makes the plan's calls from step `progress.held + 1` on, in order, then asks for the
   * reply; stops at a call that waits for a human, or when the client left.
   */
  async #execute(
    turn: TurnContext,
    progress: PlanProgress,
    made: ToolCallReport[],
    budget: TurnBudget,
  ): Promise<PlanOutcome> {
    const { calls, plan, done } = progress;
    // calls past what the plan looked at are dropped unanswered (the caps' reports say so)
    const answered = calls.length - plan.dropped;
    for (let i = progress.held; i < answered; i++) {
      if (turn.signal.aborted) return cancelledOutcome(made, PLAN_ROUND);
      const call = calls[i]!;
      const report = await this.#step(turn, call, i + 1, plan.refused.get(i), progress, budget);
      appendCallRecord(this.#d.conversations, turn.session, report, call.id);
      made.push(report);
      done.set(i + 1, stepResultOf(report));
      const ticket = report.outcome === 'confirmation_required' ? report.confirmation : undefined;
      if (ticket !== undefined) {
        this.#d.paused.add({
          session: turn.session,
          caller: turn.caller,
          iteration: PLAN_ROUND,
          waiting: new Map([[ticket.id, call.id]]),
          budget,
          expiresAt: Date.now() + this.#d.confirmationTtlMs,
          plan: { ...progress, held: i + 1 },
        });
        const reply = said(turn, pausedReply([ticket]));
        return { ...ENDED, reply, calls: made, iterations: PLAN_ROUND, paused: true };
      }
    }
    return this.#reply(turn, made);
  }

  /**
   * Step `n` of the plan: refused before the gate (an invented name, over a cap), unmade
   * (arguments that did not parse, a placeholder that cannot be filled), or through the gate
   * with what its values were taken from as what the model had read.
   */
  async #step(
    turn: TurnContext,
    call: PlannedCall,
    n: number,
    refused: ToolCallReport | undefined,
    progress: PlanProgress,
    budget: TurnBudget,
  ): Promise<ToolCallReport> {
    const answer = (report: ToolCallReport, input: unknown = call.input) => {
      turn.emit({ type: 'tool_call', call_id: call.id, tool: report.tool, input });
      turn.emit({ type: 'tool_result', call_id: call.id, report });
      return report;
    };
    if (refused !== undefined) return answer(refused);
    if (call.problem !== undefined || call.input === undefined) return answer(malformed(call));
    const filled = fillPlaceholders(call.input, n, progress.done);
    if (!filled.ok) {
      const why = `the input of ${call.tool} (step ${n} of the plan) could not be filled: ${filled.problem}`;
      return answer(unmadeCall(call, why));
    }
    turn.emit({ type: 'tool_call', call_id: call.id, tool: call.tool, input: filled.input });
    const origin = { kind: 'model', read: filled.read, turnCounts: budget.turnCounts } as const;
    const report = await this.#d.gate.invoke(call.tool, filled.input, turn.caller, origin);
    turn.emit({ type: 'tool_result', call_id: call.id, report });
    return report;
  }

  /**
   * The reply round: the conversation with the plan's results, and no tools. Calls the model
   * asks for anyway are not run; the reply names them.
   */
  async #reply(turn: TurnContext, made: ToolCallReport[]): Promise<PlanOutcome> {
    if (turn.signal.aborted) return cancelledOutcome(made, PLAN_ROUND);
    const asked = await this.#rounds.ask(turn, {
      iteration: REPLY_ROUND,
      history: this.#d.conversations.history(turn.session),
      tools: [],
      stage: 'reply',
    });
    if ('cancelled' in asked) return cancelledOutcome(made, REPLY_ROUND);
    if ('unavailable' in asked) {
      return this.#unavailable(turn, asked.unavailable, made, REPLY_ROUND);
    }
    const { step } = asked;
    const asks = step.type === 'tool_calls' ? step.calls : [];
    await this.#rounds.audit(turn, {
      iteration: REPLY_ROUND,
      outcome: 'ok',
      stage: 'reply',
      toolCalls: asks.length,
      notRun: asks.length,
      round: step.round,
      started: asked.started,
    });
    const words = step.text;
    const reply =
      asks.length === 0
        ? words
        : words.trim() === ''
          ? said(turn, afterPlanReply(asks))
          : `${words}${said(turn, `\n\n${afterPlanReply(asks)}`)}`;
    return { ...ENDED, reply, calls: made, iterations: REPLY_ROUND };
  }

  async #unavailable(
    turn: TurnContext,
    why: string,
    made: ToolCallReport[],
    iterations: number,
  ): Promise<PlanOutcome> {
    const reply = said(turn, unavailableReply(why, await this.#d.capabilities()));
    return { ...ENDED, reply, calls: made, iterations };
  }
}

/**
 * The plan's call ids, unique in the conversation: the plan was asked for without the earlier
 * tool turns, so the planner could not see their ids, and the transcript matches results to
 * calls by id. A taken or repeated id is replaced (placeholders name steps, not ids).
 */
function uniqueCallIds(
  calls: readonly PlannedCall[],
  history: readonly ConversationTurn[],
): PlannedCall[] {
  const taken = new Set<string>();
  for (const t of history) if (t.tool?.call_id) taken.add(t.tool.call_id);
  return calls.map((call) => {
    const id = call.id !== '' && !taken.has(call.id) ? call.id : newPlanCallId();
    taken.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

function newPlanCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}
