import { z } from 'zod';
import { unknownToolReport, type CallGate, type PlannerTool } from '../agent/index.js';
import type { Caller } from '../api/index.js';
import type { PreflightResult } from '../preflight/index.js';
import { PlannerActionGate, type ActionAnswer, type ActionCall } from './action-gate.js';
import {
  CallableNameSchema,
  type ExecutionLocality,
  type ResourceRequirements,
  type ToolSpec,
} from '../../protocol/index.js';

/**
 * `check_preconditions`, the planner's way to read a tool's preflight before it calls the
 * tool (issue 31, ADR 0091): `{tool}` in, `{tool, execution_locality, resource_requirements,
 * ok, warnings}` out, from the brain's own preflight cache (the worker's answer with the
 * operator's `tools.limits` warnings merged in). Offered, with the `tool` tag, whenever at
 * least one tool is offered; it answers only about a tool the model is offered, and any other
 * name gets the refusal an unknown tool gets, so it probes nothing. Nothing is dispatched, so
 * nothing is audited as `tool.called`: the round's `llm.called` row counts the call, and
 * `chat.completed` lists it. Its answer is the brain's own data: trusted, not private.
 */
export const CHECK_PRECONDITIONS = 'check_preconditions';

/** What the planner reads back. */
export interface Preconditions {
  readonly tool: string;
  readonly execution_locality: ExecutionLocality;
  readonly resource_requirements: ResourceRequirements;
  readonly ok: boolean;
  readonly warnings: readonly string[];
}

const InputSchema = z.strictObject({ tool: CallableNameSchema });

/** The action as the planner is offered it, its `tool` limited to the tools offered. */
export function preconditionsTool(offered: readonly string[]): PlannerTool {
  return Object.freeze({
    name: CHECK_PRECONDITIONS,
    description: [
      `${CHECK_PRECONDITIONS}: read whether a tool's preconditions hold before calling it.`,
      'Tags: tool. Read-only; runs nothing.',
      'Returns {tool, execution_locality, resource_requirements, ok, warnings}. A tool whose',
      'warnings are not empty (a host or an operator limit its requirements exceed) runs only',
      'after a human confirms the call.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: { tool: { type: 'string', enum: [...offered] } },
      required: ['tool'],
      additionalProperties: false,
    },
  });
}

interface PreconditionsGateOptions {
  /** The tools the planner is offered now (OfferedTools). */
  /** What `caller`'s principal is offered (ADR 0096): a tool denied to it is none of its business. */
  readonly offered: (caller: Caller) => Promise<readonly PlannerTool[]> | readonly PlannerTool[];
  readonly preflight: { get(tool: string): Promise<PreflightResult> };
  /** The live spec of a tool, for an answer when its preflight has none. */
  readonly specOf: (
    tool: string,
  ) => Pick<ToolSpec, 'execution_locality' | 'resource_requirements'> | null;
}

/**
 * The agent's call gate with the brain's own action in front: a model's `check_preconditions`
 * call is answered here; every other call goes on to the gateway as it is.
 */
export class PreconditionsGate extends PlannerActionGate<z.infer<typeof InputSchema>> {
  readonly #o: PreconditionsGateOptions;

  constructor(inner: CallGate, options: PreconditionsGateOptions) {
    super(inner, CHECK_PRECONDITIONS, InputSchema, '{tool}');
    this.#o = options;
  }

  protected async answer(
    { tool }: z.infer<typeof InputSchema>,
    caller: Caller,
    call: ActionCall,
  ): Promise<ActionAnswer> {
    const offered = (await this.#o.offered(caller))
      .map((t) => t.name)
      .filter((n) => n !== CHECK_PRECONDITIONS);
    if (!offered.includes(tool))
      return { refusal: unknownToolReport(call, CHECK_PRECONDITIONS, tool, offered) };
    return { result: await this.#preconditions(tool) };
  }

  async #preconditions(
    tool: string,
  ): Promise<Preconditions | { tool: string; ok: false; warnings: string[] }> {
    const r = await this.#o.preflight.get(tool);
    if ('reply' in r) {
      const { execution_locality, resource_requirements, ok, warnings } = r.reply;
      return { tool, execution_locality, resource_requirements, ok, warnings };
    }
    const spec = this.#o.specOf(tool);
    const warnings = [`no preflight answer: ${r.error}`];
    if (spec === null) return { tool, ok: false, warnings };
    const { execution_locality, resource_requirements } = spec;
    return { tool, execution_locality, resource_requirements, ok: false, warnings };
  }
}
