import type { Caller } from '../api/index.js';
import type { StepResult } from './placeholders.js';
import type { PlannedCall, SessionRef } from './ports.js';
import type { RoundPlan, TurnBudget } from './turn-calls.js';

/**
 * Planner turns waiting for a human. When a call of a planner round needs confirmation, the
 * turn stops and is kept here under the confirmation ids of that round; approving or
 * rejecting one (`POST /v1/confirmations/{id}`) hands its report back and, once no call of
 * the round waits any more, the turn goes on from the next round. In memory only: like the
 * confirmations themselves, paused turns do not survive a restart.
 */

/** Paused turns kept at most; the oldest goes first. */
const MAX_PAUSED = 1000;

/** A plan_first plan that stopped at a call waiting for a human (ADR 0069). */
export interface PlanProgress {
  /** The plan's calls, as the model wrote them. */
  readonly calls: readonly PlannedCall[];
  /** Which of them go to the gate (caps, invented names). */
  readonly plan: RoundPlan;
  /** The step (1 for the first) whose call waits; the plan goes on after it. */
  readonly held: number;
  /** The steps that ran, by number: what later steps' placeholders take values from. */
  readonly done: Map<number, StepResult>;
}

export interface PausedTurn {
  /** The owner's conversation, where the rest of the turn goes. */
  readonly session: SessionRef;
  /** Who opened the turn: its owner, the only one the rest of the turn is answered to. */
  readonly caller: Caller;
  /** The round whose calls wait. */
  readonly iteration: number;
  /** Confirmation id -> the model's call id, for the calls still waiting. */
  readonly waiting: Map<string, string>;
  /** The turn's call count and per-rule counts, which the rest of the turn goes on with. */
  readonly budget: TurnBudget;
  readonly expiresAt: number;
  /** plan_first: the rest of the plan. */
  readonly plan?: PlanProgress;
}

/** A turn a human stopped: the call whose rejection stopped it, and the others that waited. */
export interface DroppedTurn {
  readonly turn: PausedTurn;
  readonly callId: string;
  readonly others: readonly { readonly confirmationId: string; readonly callId: string }[];
}

export class PausedTurns {
  readonly #byConfirmation = new Map<string, PausedTurn>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  add(turn: PausedTurn): void {
    this.#prune();
    for (const id of turn.waiting.keys()) this.#byConfirmation.set(id, turn);
    while (this.#byConfirmation.size > MAX_PAUSED) {
      const oldest = this.#byConfirmation.keys().next().value;
      if (oldest === undefined) break;
      this.#byConfirmation.delete(oldest);
    }
  }

  /**
   * The turn a confirmation belongs to, with that confirmation no longer waiting, and its
   * call id; undefined when no paused turn holds it (an API invoke, expired, restarted).
   */
  take(confirmationId: string): { turn: PausedTurn; callId: string } | undefined {
    this.#prune();
    const turn = this.#byConfirmation.get(confirmationId);
    const callId = turn?.waiting.get(confirmationId);
    if (turn === undefined || callId === undefined) return undefined;
    this.#byConfirmation.delete(confirmationId);
    turn.waiting.delete(confirmationId);
    return { turn, callId };
  }

  /** Whether a paused turn waits for this confirmation. */
  has(confirmationId: string): boolean {
    this.#prune();
    return this.#byConfirmation.has(confirmationId);
  }

  /**
   * Drops the whole turn a confirmation belongs to, because a human stopped it (ADR 0068):
   * that confirmation's call id and every other confirmation of the turn still waiting,
   * none of which can resume it any more. Undefined when no paused turn holds it.
   */
  drop(confirmationId: string): DroppedTurn | undefined {
    this.#prune();
    const turn = this.#byConfirmation.get(confirmationId);
    const callId = turn?.waiting.get(confirmationId);
    if (turn === undefined || callId === undefined) return undefined;
    const others: { confirmationId: string; callId: string }[] = [];
    for (const [id, otherCall] of turn.waiting) {
      this.#byConfirmation.delete(id);
      if (id !== confirmationId) others.push({ confirmationId: id, callId: otherCall });
    }
    turn.waiting.clear();
    return { turn, callId, others };
  }

  get size(): number {
    return this.#byConfirmation.size;
  }

  #prune(): void {
    const now = this.#now();
    for (const [id, turn] of this.#byConfirmation) {
      if (turn.expiresAt <= now) this.#byConfirmation.delete(id);
    }
  }
}
