import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log/index.js';
import type { AuditSink } from '../gateway/index.js';
import { principalOf, type Caller, type ChatEvent, type ToolCallReport } from '../api/index.js';
import { PlannerUnavailableError } from './errors.js';
import type { PausedTurn, PausedTurns } from './paused.js';
import type {
  CallGate,
  CapabilityReport,
  Conversations,
  ConversationTurn,
  PlanRound,
  PlanStage,
  PlanStep,
  PlannedCall,
  Planner,
  PlannerTool,
  SessionRef,
} from './ports.js';
import { cancelledReply } from './replies.js';
import type { RoundPlan, SpecOf } from './turn-calls.js';
import { roundMs } from '../../clock/index.js';

/**
 * What both ways of running a model's turn share (ADR 0041; plan_first, ADR 0069): asking the
 * model for one round, auditing each round as `llm.called`, and how a turn ends.
 */

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

/** A way of running a model's turn: `llm.mode` `react` (PlanLoop) or `plan_first`. */
export interface TurnLoop {
  run(turn: TurnContext): Promise<PlanOutcome>;
  /**
   * Goes on with a turn that waited for a human, once no call of it waits any more;
   * `decided` is the report of the call last decided (already in the conversation).
   */
  resume(turn: TurnContext, paused: PausedTurn, decided: ToolCallReport): Promise<PlanOutcome>;
}

/** A round asked: the model's step and what it planned from, or why there is none. */
export type Asked =
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

/** One round to ask: its number, what the model is shown, and its role in plan_first. */
interface RoundAsk {
  readonly iteration: number;
  readonly history: readonly ConversationTurn[];
  readonly tools: readonly PlannerTool[];
  /** plan_first's round: `plan` or `reply`; absent in react. */
  readonly stage?: PlanStage;
}

/** One `llm.called` row. */
interface RoundRow {
  readonly iteration: number;
  readonly outcome: 'ok' | 'error';
  readonly toolCalls: number;
  readonly round: Partial<PlanRound> | undefined;
  readonly started: number;
  /** The round's calls sorted (refused, dropped), when it asked for any that may run. */
  readonly plan?: RoundPlan;
  readonly stage?: PlanStage;
  /** plan_first's reply round: calls it asked for, none of which ran. */
  readonly notRun?: number;
}

/** What a turn loop runs on; the Agent fills it from its options. */
export interface TurnLoopDeps {
  readonly planner: Planner;
  readonly gate: CallGate;
  readonly conversations: Conversations;
  readonly audit: AuditSink;
  readonly paused: PausedTurns;
  /** The tools offered to the model in a turn opened by `caller` (ADR 0096: its principal's). */
  readonly plannerTools: (
    caller: Caller,
  ) => Promise<readonly PlannerTool[]> | readonly PlannerTool[];
  /** Rounds per turn in react (`brain.max_iterations`); plan_first asks at most two. */
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

type RoundDeps = Pick<TurnLoopDeps, 'planner' | 'audit' | 'specOf' | 'now' | 'timeZone' | 'logger'>;

/** Asks the model for rounds and audits them. */
export class ModelRounds {
  readonly #d: RoundDeps;

  constructor(deps: RoundDeps) {
    this.#d = deps;
  }

  /**
   * One round: the model's step with the history it planned from and the tools it was
   * offered, or why no model answered (audited as `llm.called` here; an answer is audited
   * by the caller, once it knows which calls run).
   */
  async ask(turn: TurnContext, r: RoundAsk): Promise<Asked> {
    const { iteration, history, tools, stage } = r;
    const started = performance.now();
    try {
      const step = await this.#d.planner.plan({
        history,
        tools,
        iteration,
        ...(stage === undefined ? {} : { stage }),
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
      const failed = { iteration, outcome: 'error', toolCalls: 0, started, stage } as const;
      if (turn.signal.aborted) {
        // the client left: the planner threw because the turn's signal fired (the Planner
        // port's contract), so the round is cancelled, neither retried nor failed over
        await this.audit(turn, { ...failed, round: undefined });
        return { cancelled: true } as const;
      }
      if (!(err instanceof PlannerUnavailableError)) throw err;
      await this.audit(turn, { ...failed, round: { attempts: err.attempts } });
      return { unavailable: err.message };
    }
  }

  async audit(turn: TurnContext, row: RoundRow): Promise<void> {
    const { round, plan } = row;
    try {
      await this.#d.audit.append({
        type: 'llm.called',
        actor: turn.caller.actor,
        principal: principalOf(turn.caller).name,
        outcome: row.outcome,
        sessionId: turn.session.id,
        payload: {
          iteration: row.iteration,
          ...(row.stage === undefined ? {} : { mode: 'plan_first', role: row.stage }),
          ...(round?.provider === undefined ? {} : { provider: round.provider }),
          ...(round?.model === undefined ? {} : { model: round.model }),
          usage: { input: round?.inputTokens ?? 0, output: round?.outputTokens ?? 0 },
          duration_ms: roundMs(round?.durationMs ?? performance.now() - row.started),
          tool_calls: row.toolCalls,
          // calls that never reached the gate: counts, and invented names clamped and escaped
          ...(plan === undefined || plan.refused.size + plan.dropped === 0
            ? {}
            : { refused_calls: plan.audit }),
          ...(row.notRun === undefined || row.notRun === 0 ? {} : { not_run: row.notRun }),
          attempts: (round?.attempts ?? []).map((a) => ({
            provider: a.provider,
            model: a.model,
            outcome: a.outcome,
            ...(a.status === undefined ? {} : { status: a.status }),
            duration_ms: roundMs(a.durationMs),
          })),
        },
      });
    } catch (err) {
      this.#d.logger.error({ err, sessionId: turn.session.id }, 'could not audit llm.called');
    }
  }
}

/**
 * A turn whose client left: its note is the reply (for the audit row; nobody reads the
 * answer), and no text event is sent, since nobody reads the stream either.
 */
export function cancelledOutcome(made: ToolCallReport[], iterations: number): PlanOutcome {
  const reply = cancelledReply();
  return { reply, calls: made, iterations, capped: false, paused: false, cancelled: true };
}

/** A reply the brain wrote (not the model): sent as one text event, since nothing streamed it. */
export function said(turn: TurnContext, reply: string): string {
  turn.emit({ type: 'text', delta: reply });
  return reply;
}

/**
 * A call that cannot be made as the model wrote it (arguments that are not a JSON object, a
 * plan_first placeholder that cannot be filled): answered as `invalid_input` so the model can
 * see why. Never reaches the gate; the round's `llm.called` row records it.
 */
export function unmadeCall(call: PlannedCall, message: string): ToolCallReport {
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

/** {@link unmadeCall} for arguments that did not parse. */
export function malformed(call: PlannedCall): ToolCallReport {
  const message = `the arguments of ${call.tool} could not be read: ${call.problem ?? 'no arguments'}`;
  return unmadeCall(call, message);
}
