import type { Counter, Histogram, Registry } from 'prom-client';
import { MetricKinds } from '../http/metric-kinds.js';
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
    const kinds = new MetricKinds(registry);
    this.#requests = kinds.counter(
      'caesar_llm_requests_total',
      'Requests to a model, by provider, model and outcome (ok, rate_limited, server, timeout, connect, auth, ...).',
      ['provider', 'model', 'outcome'],
    );
    this.#retries = kinds.counter(
      'caesar_llm_retries_total',
      'Requests that retried the same provider after a retryable failure.',
      ['provider', 'model'],
    );
    this.#failovers = kinds.counter(
      'caesar_llm_failovers_total',
      'Rounds that moved on to this fallback provider.',
      ['provider', 'model'],
    );
    this.#tokens = kinds.counter(
      'caesar_llm_tokens_total',
      'Tokens by provider, model and direction (in: prompt, out: completion).',
      ['provider', 'model', 'direction'],
    );
    this.#requestDuration = kinds.histogram(
      'caesar_llm_request_duration_seconds',
      'Time of one request to a model (a streamed answer to its end).',
      ['provider', 'model'],
      MODEL_BUCKETS,
    );
    this.#roundDuration = kinds.histogram(
      'caesar_llm_round_duration_seconds',
      'Time of one planner round with its retries and waits, by the model that answered.',
      ['provider', 'model'],
      MODEL_BUCKETS,
    );
    this.#unavailable = kinds.counter(
      'caesar_llm_unavailable_total',
      'Planner rounds no configured model answered.',
    );
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
