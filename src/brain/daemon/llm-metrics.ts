import type { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from '../http/index.js';
import type { PlanAttempt, PlanRound } from '../agent/index.js';
import type { LlmAttemptEvent, LlmObserver } from '../llm/index.js';

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

  constructor(registry: MetricsRegistry) {
    this.#requests = registry.counter('caesar_llm_requests_total');
    this.#retries = registry.counter('caesar_llm_retries_total');
    this.#failovers = registry.counter('caesar_llm_failovers_total');
    this.#tokens = registry.counter('caesar_llm_tokens_total');
    this.#requestDuration = registry.histogram('caesar_llm_request_duration_seconds');
    this.#roundDuration = registry.histogram('caesar_llm_round_duration_seconds');
    this.#unavailable = registry.counter('caesar_llm_unavailable_total');
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
