import { silentLogger, type Logger } from '../../log/index.js';
import { hostTimeZone, roundMs } from '../../clock/index.js';
import {
  principalOf,
  type Caller,
  type ChatEvent,
  type ChatRequest,
  type ChatResponse,
  type ToolCallReport,
} from '../api/index.js';
import type { AuditSink } from '../gateway/index.js';
import { PausedTurns } from './paused.js';
import { PlanFirstLoop } from './plan-first.js';
import { PlanLoop } from './plan-loop.js';
import type { PlanOutcome, TurnContext, TurnLoop, TurnLoopDeps } from './rounds.js';
import type {
  CallGate,
  CapabilityReport,
  Conversations,
  IntentHit,
  IntentMatcher,
  IntentOutcome,
  JobEndReports,
  Planner,
  PlannerTool,
  SessionRef,
  ToolStep,
} from './ports.js';
import { matchBuiltin, POLICY_LIST_CLAUSE, type BuiltinKind } from '../intents/index.js';
import { clockReply, greetingReply, helpReply, offlineReply, stoppedNote } from './replies.js';
import { appendCallRecord, type SpecOf } from './turn-calls.js';
import { clientKeptSessionId } from './client-kept.js';

interface AgentOptions {
  gate: CallGate;
  intents: IntentMatcher;
  conversations: Conversations;
  audit: AuditSink;
  /** Absent: no LLM is configured; unmatched messages get the offline reply. */
  planner?: Planner;
  /** The tools a planner may call (discovered, allowed, ready), computed per round. */
  plannerTools?: (caller: Caller) => Promise<readonly PlannerTool[]> | readonly PlannerTool[];
  /**
   * What the local rules can do right now (discovered, allowed, ready) and the step that
   * enables each of the others, for the replies that list them.
   * @default every rule's line as working (`intents.capabilities()`)
   */
  capabilities?: () => Promise<CapabilityReport>;
  /**
   * What keeps a tool from working now, each with its step: a rule's call that was refused
   * or found no worker gets the steps its reply did not already say. @default none
   */
  toolSteps?: (tool: string) => Promise<readonly ToolStep[]>;
  /**
   * Answers a rule's entity lookup without its tool, when the policy does not grant the tool
   * (the spoken name matched against the entities the policy names, ADR 0088); the reply then
   * says so. Undefined for a lookup: it goes through the gate. @default none
   */
  lookupFallback?: (lookup: {
    readonly tool: string;
    readonly input: unknown;
  }) => IntentOutcome | undefined;
  /**
   * How a model's turn runs (`llm.mode`): `react`, the model asks for calls round after
   * round as it reads their results; `plan_first`, it plans every call before reading any
   * result, and results fill values but add no calls (ADR 0069). @default 'react'
   */
  mode?: 'react' | 'plan_first';
  /** Planner rounds per message (react; plan_first asks at most two). @default 5 */
  maxIterations?: number;
  /** Calls that run per planning round (`llm.max_calls_per_round`). @default 8 */
  maxCallsPerRound?: number;
  /** Calls that run per turn (`llm.max_calls_per_turn`). @default 24 */
  maxCallsPerTurn?: number;
  /** A tool's spec, to label results stored before labels (ADR 0065). @default unknown */
  specOf?: SpecOf;
  /**
   * The ends of jobs each conversation submitted, told at its next turn (ADR 0100). @default
   * none: a job's end is only read on asking (`job_status`, `GET /v1/jobs`)
   */
  jobReports?: JobEndReports;
  /** Local intent rules before the planner on every message. @default true */
  preferLocal?: boolean;
  /** How long a paused planner turn waits for its confirmation. @default 120000 */
  confirmationTtlMs?: number;
  /** IANA zone for "today" and "this week". @default the system's zone */
  timeZone?: string;
  now?: () => Date;
  onChat?: (planner: ChatResponse['planner'], durationMs: number) => void;
  logger?: Logger;
}

/** Per-message options: where the turn's events go, and its cancellation. */
interface AgentChatOptions {
  readonly onEvent?: (event: ChatEvent) => void;
  readonly signal?: AbortSignal;
  /** Turns a client kept (OpenAI-style): a new session starts with them. */
  readonly seed?: readonly { readonly role: 'user' | 'assistant'; readonly content: string }[];
}

type Turn = Omit<ChatResponse, 'session_id'> & {
  /** The reply goes into the conversation as the assistant's words. */
  readonly keep: boolean;
  /** The client left before the answer (ends the turn as cancelled). */
  readonly cancelled?: boolean;
  /** The token that stopped the turn by rejecting one of its calls (ADR 0068). */
  readonly stoppedBy?: string;
  /** Lines that open the reply (job ends, ADR 0100); not kept as the assistant's words. */
  readonly opening?: string;
};

/** The rest of a paused turn, and whose turn it is. */
export interface ResumedTurn {
  /** The actor that opened the turn: the only one the rest of it may be shown to. */
  readonly owner: string;
  readonly response: ChatResponse;
}

/** A paused turn a human stopped, and whose turn it was. */
export interface StoppedTurn {
  /** The actor that opened the turn. */
  readonly owner: string;
  /** The turn's other calls that still waited, now rejected, by confirmation id. */
  readonly alsoRejected: readonly { readonly id: string; readonly report: ToolCallReport }[];
}

/**
 * The agent loop: local intent rules first (offline, deterministic; `preferLocal`), then the
 * planner when one is configured (PlanLoop; PlanFirstLoop under `llm.mode: plan_first`).
 * Every tool call goes through the gate; every answered message ends in a `chat.completed`
 * audit row, capped or not. A planner turn paused for a human goes on when the confirmation
 * is decided (`resume`).
 */
export class Agent {
  readonly #o: AgentOptions;
  readonly #log: Logger;
  /** Asked of ICU at the first message that needs it, not at start (ADR 0048). */
  #timeZone: string | undefined;
  readonly #paused = new PausedTurns();
  readonly #loop: TurnLoop | undefined;

  constructor(options: AgentOptions) {
    this.#o = options;
    this.#log = options.logger ?? silentLogger();
    if (options.planner === undefined) return;
    const deps: TurnLoopDeps = {
      planner: options.planner,
      gate: options.gate,
      conversations: options.conversations,
      audit: options.audit,
      paused: this.#paused,
      plannerTools: options.plannerTools ?? (() => []),
      maxIterations: options.maxIterations ?? 5,
      maxCallsPerRound: options.maxCallsPerRound ?? 8,
      maxCallsPerTurn: options.maxCallsPerTurn ?? 24,
      specOf: options.specOf ?? (() => null),
      confirmationTtlMs: options.confirmationTtlMs ?? 120_000,
      capabilities: () => this.#capabilities(),
      now: options.now ?? (() => new Date()),
      timeZone: () => this.#zone(),
      logger: this.#log,
    };
    this.#loop = options.mode === 'plan_first' ? new PlanFirstLoop(deps) : new PlanLoop(deps);
  }

  /**
   * Answers one message in a session (a new one when `session_id` is absent, or unknown
   * with `create_session`).
   * @throws the conversation store's SessionNotFoundError for a foreign session, or an
   *   unknown one without `create_session`.
   */
  async chat(
    request: ChatRequest,
    caller: Caller,
    options: AgentChatOptions = {},
  ): Promise<ChatResponse> {
    const started = performance.now();
    const conv = this.#o.conversations;
    const create = request.create_session === true;
    // a conversation the client keeps is one request of it: a session of its own kind
    const clientKept = request.session_id === undefined && options.seed !== undefined;
    const session = clientKept
      ? conv.ensureSession(clientKeptSessionId(), caller.actor, true)
      : conv.ensureSession(request.session_id, caller.actor, create);
    if (request.session_id === undefined) {
      for (const t of options.seed ?? []) {
        if (t.role === 'user') conv.appendUser(session, t.content);
        else conv.appendAssistant(session, t.content);
      }
    }
    const opening = this.#jobEnds(session, clientKept);
    conv.appendUser(session, request.message);
    const turn = this.#context(session, { ...caller, sessionId: session.id }, options);
    if (opening !== '') turn.emit({ type: 'text', delta: opening });
    const answer = await this.#answer(request.message, turn);
    return this.#finish(turn, request.message, { ...answer, opening }, started);
  }

  /**
   * Hands the decision on a confirmation back to the planner turn that waits for it, and
   * goes on from the next round once no call of that round waits any more: the rest of the
   * turn lands in its owner's conversation and audit row, whoever decided. Undefined when
   * no paused turn holds the confirmation (a call made through `invoke`, or an intent's).
   * The response is the owner's: the caller shows it only to `owner` (ADR 0063).
   */
  async resume(
    confirmationId: string,
    report: ToolCallReport,
    options: AgentChatOptions = {},
  ): Promise<ResumedTurn | undefined> {
    const taken = this.#paused.take(confirmationId);
    if (taken === undefined || this.#loop === undefined) return undefined;
    const started = performance.now();
    const { turn: paused, callId } = taken;
    const owner = paused.caller.actor;
    appendCallRecord(this.#o.conversations, paused.session, report, callId);
    const turn = this.#context(paused.session, paused.caller, options);
    const message = `(confirmation ${confirmationId} decided: ${report.outcome})`;
    if (paused.waiting.size > 0) {
      const reply = `Noted. Still waiting for ${paused.waiting.size} more approval(s): ${[...paused.waiting.keys()].join(', ')}.`;
      const answer = {
        reply,
        tool_calls: [report],
        iterations: paused.iteration,
        capped: false,
        planner: 'llm' as const,
        keep: false,
      };
      return { owner, response: await this.#finish(turn, message, answer, started) };
    }
    const outcome = await this.#loop.resume(turn, paused, report);
    return { owner, response: await this.#finish(turn, message, planned(outcome), started) };
  }

  /** Whether a paused planner turn waits for this confirmation (one `stop` could stop). */
  waitsFor(confirmationId: string): boolean {
    return this.#paused.has(confirmationId);
  }

  /**
   * Stops the paused turn that waits for `confirmationId`, whose call `by` has just rejected
   * (`report`), instead of letting it go on (ADR 0068): no round is asked of the model after
   * it; every other call of the turn still waiting is rejected (`turn_stopped`); the owner's
   * conversation gets the rejections and a note in the operator's voice (`stoppedNote`), and
   * the owner's `chat.completed` row says who stopped it. Undefined when no paused turn
   * holds the confirmation (an API invoke's call): then it was a plain rejection.
   */
  async stop(
    confirmationId: string,
    report: ToolCallReport,
    by: Caller,
  ): Promise<StoppedTurn | undefined> {
    const dropped = this.#paused.drop(confirmationId);
    if (dropped === undefined) return undefined;
    const started = performance.now();
    const { turn: paused, callId, others } = dropped;
    const conv = this.#o.conversations;
    appendCallRecord(conv, paused.session, report, callId);
    const alsoRejected: { id: string; report: ToolCallReport }[] = [];
    for (const other of others) {
      const rejected = await this.#o.gate.rejectStopped(other.confirmationId, by, confirmationId);
      if (rejected === undefined) continue;
      appendCallRecord(conv, paused.session, rejected, other.callId);
      alsoRejected.push({ id: other.confirmationId, report: rejected });
    }
    const calls = [report, ...alsoRejected.map((r) => r.report)];
    const note = stoppedNote(
      by.actor,
      calls.map((c) => c.tool),
    );
    conv.appendUser(paused.session, note);
    const turn = this.#context(paused.session, paused.caller, {});
    const message = `(confirmation ${confirmationId} rejected by ${by.actor}: turn stopped)`;
    const answer: Turn = {
      reply: note,
      tool_calls: calls,
      iterations: paused.iteration,
      capped: false,
      planner: 'llm',
      keep: false,
      stoppedBy: by.actor,
    };
    await this.#finish(turn, message, answer, started);
    return { owner: paused.caller.actor, alsoRejected };
  }

  /**
   * The ends of this conversation's jobs not told yet (ADR 0100): each one's record goes into
   * the conversation before the message, as content the turn reads (labelled as its tool's
   * output); the lines open the reply. A store that cannot say does not stop the turn.
   */
  #jobEnds(session: SessionRef, clientKept: boolean): string {
    if (this.#o.jobReports === undefined) return '';
    try {
      const reports = this.#o.jobReports.take(session, clientKept);
      for (const r of reports) this.#o.conversations.appendTool(session, r.record);
      return reports.length === 0 ? '' : `${reports.map((r) => r.line).join('\n')}\n\n`;
    } catch (err) {
      this.#log.warn({ err, sessionId: session.id }, 'could not read the ends of jobs to report');
      return '';
    }
  }

  #context(session: SessionRef, caller: Caller, options: AgentChatOptions): TurnContext {
    const sink = options.onEvent;
    const emit = (event: ChatEvent) => {
      if (sink === undefined) return;
      try {
        sink(event);
      } catch (err) {
        this.#log.warn({ err }, 'a chat event listener threw');
      }
    };
    return { session, caller, signal: options.signal ?? new AbortController().signal, emit };
  }

  #capabilities(): Promise<CapabilityReport> {
    if (this.#o.capabilities) return this.#o.capabilities();
    return Promise.resolve({ ready: this.#o.intents.capabilities(), missing: [] });
  }

  /**
   * The configured zone, else the machine's. Looked up when first needed: asking ICU maps
   * about 7 MiB of its date data, which an idle brain need not hold.
   */
  #zone(): string {
    return (this.#timeZone ??= this.#o.timeZone ?? hostTimeZone());
  }

  async #answer(message: string, turn: TurnContext): Promise<Turn> {
    const now = (this.#o.now ?? (() => new Date()))();
    // with a model, greetings, the time and "what can you do" are the model's (ADR 0074)
    const builtin = this.#loop === undefined ? matchBuiltin(message) : undefined;
    if (builtin !== undefined) return this.#said(await this.#builtin(builtin, now), turn);
    if (this.#o.preferLocal !== false || this.#loop === undefined) {
      const hit = this.#o.intents.match(message, { now, timeZone: this.#zone() });
      if (hit) {
        this.#log.debug({ intent: hit.intent, tool: hit.tool }, 'local intent matched');
        return this.#intent(hit, turn);
      }
    }
    if (this.#loop) return planned(await this.#loop.run(turn));
    return this.#said(offlineReply(await this.#capabilities()), turn);
  }

  /** The brain's own answer to a greeting, the time, the date or "what can you do". */
  async #builtin(kind: BuiltinKind, now: Date): Promise<string> {
    switch (kind) {
      case 'time':
      case 'date':
        return clockReply(kind, now, this.#zone());
      case 'greeting':
        return greetingReply(await this.#capabilities());
      case 'help':
        return helpReply(await this.#capabilities());
    }
  }

  /** A reply the brain words itself, no rule and no model (`planner: none`). */
  #said(reply: string, turn: TurnContext): Turn {
    turn.emit({ type: 'text', delta: reply });
    return { reply, tool_calls: [], iterations: 0, capped: false, planner: 'none', keep: true };
  }

  /**
   * Runs a matched rule: its lookups first (each through the gate, stopping at the first
   * that does not answer), then its call, unless a lookup ended the turn with a question.
   */
  async #intent(matched: IntentHit, turn: TurnContext): Promise<Turn> {
    const calls: ToolCallReport[] = [];
    let tools = [matched.tool, ...matched.lookups.map((l) => l.tool)];
    let hit = matched;
    let note = '';
    if (hit.lookups.length > 0) {
      const { outcomes, fellBack } = await this.#lookups(hit, turn, calls);
      // answered from the policy's own list: granting the lookup tool is no step to repeat
      if (fellBack) [note, tools] = [` ${POLICY_LIST_CLAUSE}`, [matched.tool]];
      const next = hit.resolve(outcomes);
      if ('reply' in next) {
        const last = calls.at(-1);
        const steps = last === undefined ? '' : await this.#stepsLeft(last, tools);
        return this.#intentTurn(next.reply + note + steps, calls, turn);
      }
      hit = next;
    }
    const report = await this.#call('intent', hit, hit, turn);
    calls.push(report);
    const reply = hit.render(report) + note + (await this.#stepsLeft(report, tools));
    return this.#intentTurn(reply, calls, turn);
  }

  /**
   * A rule's lookups in order, each through the gate (its report joins `calls`) unless
   * `lookupFallback` answers it; stops at the first that does not answer.
   */
  async #lookups(hit: IntentHit, turn: TurnContext, calls: ToolCallReport[]) {
    const outcomes: IntentOutcome[] = [];
    let fellBack = false;
    for (const [i, lookup] of hit.lookups.entries()) {
      let outcome = this.#o.lookupFallback?.(lookup);
      if (outcome === undefined) {
        const report = await this.#call(`lookup-${i + 1}`, hit, lookup, turn);
        calls.push(report);
        outcome = report;
      } else fellBack = true;
      outcomes.push(outcome);
      if (outcome.outcome !== 'ok') break;
    }
    return { outcomes, fellBack };
  }

  /**
   * For a call refused by the policy, or that found no worker or no configuration: the other
   * steps the rule's tools still need (the reply already says the one this call ran into),
   * so that the operator learns them all at once rather than one failed message at a time.
   */
  async #stepsLeft(report: ToolCallReport, tools: readonly string[]): Promise<string> {
    const said = statedStep(report);
    if (said === undefined || this.#o.toolSteps === undefined) return '';
    const steps: string[] = [];
    for (const tool of new Set(tools)) {
      for (const step of await this.#o.toolSteps(tool)) {
        if (tool === report.tool && step.kind === said) continue;
        steps.push(step.text);
      }
    }
    return steps.map((text) => `\nAlso: ${text}`).join('');
  }

  #intentTurn(reply: string, calls: ToolCallReport[], turn: TurnContext): Turn {
    turn.emit({ type: 'text', delta: reply });
    return {
      reply,
      tool_calls: calls,
      iterations: 1,
      capped: false,
      planner: 'intent',
      keep: true,
    };
  }

  /**
   * One call of a local rule: asked by the rule, on the operator's own words (the policy's
   * flow rules judge a model's calls, not these; ADR 0065).
   */
  async #call(
    callId: string,
    hit: IntentHit,
    call: { readonly tool: string; readonly input: unknown },
    turn: TurnContext,
  ) {
    const { tool, input } = call;
    turn.emit({ type: 'tool_call', call_id: callId, tool, input });
    const origin = { kind: 'intent', intent: hit.intent } as const;
    const report = await this.#o.gate.invoke(tool, input, turn.caller, origin);
    turn.emit({ type: 'tool_result', call_id: callId, report });
    appendCallRecord(this.#o.conversations, turn.session, report);
    return report;
  }

  async #finish(turn: TurnContext, message: string, answer: Turn, started: number) {
    const { keep, cancelled = false, stoppedBy, opening = '', ...rest } = answer;
    // a paused turn's reply asks for approval, a cancelled one's says nobody got an answer:
    // the model must not read either as its own words; nor the job ends that open a reply,
    // which the conversation holds as labelled records
    if (keep) this.#o.conversations.appendAssistant(turn.session, rest.reply);
    const response: ChatResponse = {
      session_id: turn.session.id,
      ...rest,
      reply: opening + rest.reply,
    };
    const durationMs = performance.now() - started;
    await this.#audit(message, response, turn.caller, durationMs, { cancelled, stoppedBy });
    this.#o.onChat?.(response.planner, durationMs);
    return response;
  }

  async #audit(
    message: string,
    r: ChatResponse,
    caller: Caller,
    durationMs: number,
    ended: { cancelled: boolean; stoppedBy: string | undefined },
  ) {
    const { cancelled, stoppedBy } = ended;
    try {
      await this.#o.audit.append({
        type: 'chat.completed',
        actor: caller.actor,
        principal: principalOf(caller).name,
        outcome: r.capped || cancelled ? 'error' : 'ok',
        sessionId: r.session_id,
        payload: {
          message,
          reply: r.reply,
          iterations: r.iterations,
          capped: r.capped,
          ...(cancelled ? { cancelled } : {}),
          ...(stoppedBy === undefined ? {} : { stopped_by: stoppedBy }),
          planner: r.planner,
          tool_calls: r.tool_calls.map((c) => ({
            tool: c.tool,
            decision_id: c.decision_id,
            outcome: c.outcome,
          })),
          duration_ms: roundMs(durationMs),
        },
      });
    } catch (err) {
      // the calls themselves were audited (or refused) by the gate; the reply still goes out
      this.#log.error({ err, sessionId: r.session_id }, 'could not audit chat.completed');
    }
  }
}

/** The kind of step a refused or failed call's own reason already tells. */
function statedStep(report: ToolCallReport): ToolStep['kind'] | undefined {
  if (report.outcome === 'denied') return 'grant';
  if (report.outcome !== 'failed') return undefined;
  if (report.error?.code === 'no_worker') return 'start';
  if (report.error?.code === 'not_configured') return 'configure';
  return undefined;
}

function planned(o: PlanOutcome): Turn {
  // a streamed model reply arrived as text events; the others are sent here in one piece
  return {
    reply: o.reply,
    tool_calls: o.calls,
    iterations: o.iterations,
    capped: o.capped,
    planner: 'llm',
    keep: !o.paused && !o.cancelled,
    cancelled: o.cancelled,
  };
}
