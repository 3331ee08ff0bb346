import type {
  ConversationTurn,
  PlannedCall,
  Planner,
  PlannerTool,
  PlanRequest,
  PlanStage,
  PlanStep,
} from '../agent/ports.js';
import { spokenNow } from '../../clock/index.js';
import { parseCallArguments } from './arguments.js';
import type { ProviderChain } from './chain.js';
import { DEFAULT_SYSTEM_PROMPT, PLAN_FIRST_PLAN_RULES, PLAN_FIRST_REPLY_RULES } from './prompt.js';
import { toTranscript } from './transcript.js';
import type { LlmResponse, LlmTool, LlmToolCall } from './types.js';
import { newCallId } from './wire.js';

interface LlmPlannerOptions {
  readonly chain: ProviderChain;
  /** Replaces the built-in prompt ({@link DEFAULT_SYSTEM_PROMPT}); `llm.system_prompt`. */
  readonly systemPrompt?: string;
}

/**
 * The system prompt with the local date and time appended, so "today" and "tomorrow" mean
 * the user's day: `Now: Tuesday 2026-12-01 11:05 (Europe/Berlin, UTC+01:00).`
 */
export function withClock(system: string, now?: Date, timeZone?: string): string {
  if (now === undefined || timeZone === undefined) return system;
  const n = spokenNow(now, timeZone);
  return `${system}\n\nNow: ${n.weekday} ${n.date} ${n.time} (${timeZone}, ${n.offset}).`;
}

/** Stop reasons that mean the model reached its token cap. */
const CUT = new Set(['length', 'max_tokens']);

/**
 * The LLM behind the agent's Planner seam. One round: the history as a transcript, the
 * offered tools (their cards as descriptions), the system prompt, through the provider
 * chain (retries, failover); the answer as a PlanStep. Calls are returned as the model
 * wrote them, unknown tool names included (the gate denies and audits those); arguments
 * that are not a JSON object become a call with a `problem` instead of an input.
 */
export class LlmPlanner implements Planner {
  readonly name = 'llm';
  readonly #chain: ProviderChain;
  readonly #system: string;

  constructor(options: LlmPlannerOptions) {
    this.#chain = options.chain;
    this.#system = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  }

  /**
   * @throws PlannerUnavailableError when no configured model answered
   * @throws LlmError of kind `aborted` when `request.signal` fired
   */
  async plan(request: PlanRequest): Promise<PlanStep> {
    const system = withStage(this.#system, request.stage);
    const { response, round } = await this.#chain.complete({
      system: withClock(system, request.now, request.timeZone),
      // no tools offered: no tool blocks either (Anthropic refuses them in such a request)
      messages: toTranscript(request.history, {
        toolTurns: request.tools.length === 0 ? 'text' : 'calls',
      }),
      tools: request.tools.map(toLlmTool),
      signal: request.signal,
      ...(request.onText ? { onText: request.onText } : {}),
      ...(request.onTextReset ? { onTextReset: request.onTextReset } : {}),
    });
    const cut = CUT.has(response.stopReason);
    if (response.calls.length === 0) {
      return { type: 'reply', text: replyText(response, cut, request.onText), round };
    }
    const ids = new UniqueIds(request.history);
    const calls = response.calls.map((c) => plannedCall(c, ids.take(c.id), cut));
    return { type: 'tool_calls', text: response.text, calls, round };
  }
}

/** The prompt of a plan_first round: the operator's (or built-in) prompt, then its rules. */
function withStage(system: string, stage: PlanStage | undefined): string {
  if (stage === undefined) return system;
  return `${system}\n\n${stage === 'plan' ? PLAN_FIRST_PLAN_RULES : PLAN_FIRST_REPLY_RULES}`;
}

function toLlmTool(t: PlannerTool): LlmTool {
  return { name: t.name, description: t.description, inputSchema: t.inputSchema };
}

function plannedCall(c: LlmToolCall, id: string, cut: boolean): PlannedCall {
  const parsed = parseCallArguments(c.name, c.arguments);
  if ('input' in parsed) return { id, tool: c.name, input: parsed.input };
  const why = cut ? `${parsed.problem} (the answer was cut at llm.max_tokens)` : parsed.problem;
  return { id, tool: c.name, problem: why };
}

/**
 * The reply, with a line saying so when the model was cut off at its token cap (streamed
 * too, so the streamed text and the reply agree), or a plain sentence for an empty answer.
 */
function replyText(r: LlmResponse, cut: boolean, onText?: (delta: string) => void): string {
  let extra = '';
  if (r.text.trim() === '') {
    extra = cut
      ? 'The model stopped before it wrote anything: it reached llm.max_tokens.'
      : 'The model returned an empty answer.';
  } else if (cut) extra = '\n\n[The answer was cut: the model reached llm.max_tokens.]';
  if (extra === '') return r.text;
  onText?.(extra);
  return r.text + extra;
}

/**
 * Call ids unique in the conversation: the transcript matches results to calls by id, and
 * some servers number calls afresh each answer (`call_0`) or repeat one within an answer.
 * A taken id is replaced by a new one (the model never needs its own back).
 */
class UniqueIds {
  readonly #taken = new Set<string>();

  constructor(history: readonly ConversationTurn[]) {
    for (const t of history) if (t.tool?.call_id) this.#taken.add(t.tool.call_id);
  }

  take(id: string): string {
    const unique = id !== '' && !this.#taken.has(id) ? id : newCallId();
    this.#taken.add(unique);
    return unique;
  }
}
