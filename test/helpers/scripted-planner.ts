import { PlannerUnavailableError } from '../../src/brain/agent/errors.js';
import type { Planner, PlanRequest, PlanStep } from '../../src/brain/agent/ports.js';

/**
 * One scripted round: a step, a function of the request, or "no model answered" with what was
 * tried (`openai (gpt at 127.0.0.1:1) connection refused`; the catalogue adds its own words).
 */
export type ScriptedRound =
  PlanStep | ((request: PlanRequest) => PlanStep) | { readonly unavailable: string };

/**
 * A planner that plays a script, one entry per round, then repeats the last: the agent loop
 * tested without a model (the providers have their own tests against loopback servers).
 * Records every request, so a test can read what the planner was shown.
 */
export class ScriptedPlanner implements Planner {
  readonly name = 'scripted';
  readonly requests: PlanRequest[] = [];
  readonly #rounds: readonly ScriptedRound[];

  constructor(rounds: readonly ScriptedRound[]) {
    this.#rounds = rounds;
  }

  plan(request: PlanRequest): Promise<PlanStep> {
    this.requests.push(request);
    const round = this.#rounds[Math.min(this.requests.length, this.#rounds.length) - 1];
    if (round === undefined) return Promise.reject(new Error('empty script'));
    if ('unavailable' in round) {
      const attempt = { provider: 'openai', model: 'm', outcome: 'connect', durationMs: 1 };
      return Promise.reject(new PlannerUnavailableError([attempt], round.unavailable));
    }
    return Promise.resolve(typeof round === 'function' ? round(request) : round);
  }
}
