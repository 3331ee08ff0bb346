import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { unmadeCall, type CallGate } from '../agent/index.js';
import type { Caller, ToolCallReport } from '../api/index.js';
import { LOCAL_LABEL, type ContentLabel } from '../gateway/provenance.js';
import { describeFirstIssue } from '../../protocol/index.js';

/** What a planner action answers: its result and what that is as content, or a refusal. */
export type ActionAnswer =
  | { readonly result: unknown; readonly label?: ContentLabel }
  | { readonly refusal: ToolCallReport };

/** The action's call as its refusals name it ({@link unmadeCall}, `unknownToolReport`). */
export interface ActionCall {
  readonly id: '';
  readonly tool: string;
  readonly input: unknown;
}

/**
 * The agent's call gate with one of the brain's own planner actions answered in front of it
 * (`check_preconditions`, `job_status`): a model's call of the action is parsed against the
 * action's input schema and answered here, never dispatched and so never audited as
 * `tool.called` (the round's `llm.called` row counts it); every other call, and the action's
 * name from any caller but a model, goes on to the inner gate as it is. An answer is the
 * brain's own data (`LOCAL_LABEL`) unless the action labels it otherwise.
 */
export abstract class PlannerActionGate<I> implements CallGate {
  readonly #inner: CallGate;

  /**
   * @param action the action's name as the planner is offered it
   * @param input its arguments' schema
   * @param shape the arguments as a refusal names them, e.g. `{tool}`
   */
  protected constructor(
    inner: CallGate,
    private readonly action: string,
    private readonly input: z.ZodType<I>,
    private readonly shape: string,
  ) {
    this.#inner = inner;
  }

  /** The action's answer to arguments that parsed, asked by `caller`. */
  protected abstract answer(
    input: I,
    caller: Caller,
    call: ActionCall,
  ): ActionAnswer | Promise<ActionAnswer>;

  invoke(...args: Parameters<CallGate['invoke']>): Promise<ToolCallReport> {
    const [tool, input, caller, origin] = args;
    if (tool !== this.action || origin?.kind !== 'model') return this.#inner.invoke(...args);
    return this.#answer(input, caller);
  }

  rejectStopped(...args: Parameters<CallGate['rejectStopped']>) {
    return this.#inner.rejectStopped(...args);
  }

  async #answer(input: unknown, caller: Caller): Promise<ToolCallReport> {
    const started = performance.now();
    const call: ActionCall = { id: '', tool: this.action, input };
    const parsed = this.input.safeParse(input);
    if (!parsed.success) {
      const why = describeFirstIssue(parsed.error);
      return unmadeCall(call, `the arguments of ${this.action} are not ${this.shape}: ${why}`);
    }
    const answer = await this.answer(parsed.data, caller, call);
    if ('refusal' in answer) return answer.refusal;
    return {
      tool: this.action,
      input,
      outcome: 'ok',
      result: answer.result,
      label: answer.label ?? LOCAL_LABEL,
      decision_id: randomUUID(),
      duration_ms: Math.round(performance.now() - started),
    };
  }
}
