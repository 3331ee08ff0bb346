import { Counter, Histogram, type Registry } from 'prom-client';
import type { PlanAttempt, PlanRound } from '../agent/index.js';
import type { LlmAttemptEvent, LlmObserver } from '../llm/index.js';

/** 50 ms .. 2 min: a local model on a Pi is slow, a hosted one answers in a second or two. */
const MODEL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/**
 * The planner's Prometheus series, on the brain's registry: requests to models by provider,
 * model and outcome; retries and failovers; tokens in and out; time per request and per
 * round; rounds no model answered. Label values are configured provider and model names
 * (a handful), never anything a user sent.
 */
export class LlmMetrics implements LlmObserver {
  readonly #requests: Counter<'provider' | 'model' | 'outcome'>;
  readonly #retries: Counter<'provider' | 'model'>;
  readonly #failovers: Counter<'provider' | 'model'>;
  readonly #tokens: Counter<'provider' | 'model' | 'direction'>;
  readonly #requestDuration: Histogram<'provider' | 'model'>;
  readonly #roundDuration: Histogram<'provider' | 'model'>;
  readonly #unavailable: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#requests = new Counter({
      name: 'caesar_llm_requests_total',
      help: 'Requests to a model, by provider, model and outcome (ok, rate_limited, server, timeout, connect, auth, ...).',
      labelNames: ['provider', 'model', 'outcome'],
      registers,
    });
    this.#retries = new Counter({
      name: 'caesar_llm_retries_total',
      help: 'Requests that retried the same provider after a retryable failure.',
      labelNames: ['provider', 'model'],
      registers,
    });
    this.#failovers = new Counter({
      name: 'caesar_llm_failovers_total',
      help: 'Rounds that moved on to this fallback provider.',
      labelNames: ['provider', 'model'],
      registers,
    });
    this.#tokens = new Counter({
      name: 'caesar_llm_tokens_total',
      help: 'Tokens by provider, model and direction (in: prompt, out: completion).',
      labelNames: ['provider', 'model', 'direction'],
      registers,
    });
    this.#requestDuration = new Histogram({
      name: 'caesar_llm_request_duration_seconds',
      help: 'Time of one request to a model (a streamed answer to its end).',
      labelNames: ['provider', 'model'],
      buckets: MODEL_BUCKETS,
      registers,
    });
    this.#roundDuration = new Histogram({
      name: 'caesar_llm_round_duration_seconds',
      help: 'Time of one planner round with its retries and waits, by the model that answered.',
      labelNames: ['provider', 'model'],
      buckets: MODEL_BUCKETS,
      registers,
    });
    this.#unavailable = new Counter({
      name: 'caesar_llm_unavailable_total',
      help: 'Planner rounds no configured model answered.',
      registers,
    });
  }

  attempt(event: LlmAttemptEvent): void {
    const who = { provider: event.provider, model: event.model };
    this.#requests.inc({ ...who, outcome: event.outcome });
    this.#requestDuration.observe(who, event.durationMs / 1000);
    if (event.retry) this.#retries.inc(who);
    if (event.failover) this.#failovers.inc(who);
  }

  round(round: PlanRound): void {
    const who = { provider: round.provider, model: round.model };
    this.#tokens.inc({ ...who, direction: 'in' }, round.inputTokens);
    this.#tokens.inc({ ...who, direction: 'out' }, round.outputTokens);
    this.#roundDuration.observe(who, round.durationMs / 1000);
  }

  unavailable(_attempts: readonly PlanAttempt[]): void {
    this.#unavailable.inc();
  }
}
