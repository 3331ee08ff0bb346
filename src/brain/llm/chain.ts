import { setTimeout as delay } from 'node:timers/promises';
import { silentLogger, type Logger } from '../../log/index.js';
import { errorMessage } from '../../errors/index.js';
import { PlannerUnavailableError } from '../agent/errors.js';
import type { PlanAttempt, PlanRound } from '../agent/ports.js';
import { DEFAULT_BACKOFF, retryDelay, type BackoffOptions } from './backoff.js';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse } from './types.js';

/** One request to a model as the observer sees it: the attempt, and where it sat. */
export interface LlmAttemptEvent extends PlanAttempt {
  /** 0 for a round's first request. */
  readonly index: number;
  /** A retry of the same provider after a retryable failure. */
  readonly retry: boolean;
  /** The first request to a fallback, after the provider before it gave up. */
  readonly failover: boolean;
}

/**
 * Hooks for metrics (the daemon counts tokens, latency, retries and failovers in
 * Prometheus). Each is optional and called synchronously; one that throws is logged and
 * ignored. Attempts never carry an API key.
 */
export interface LlmObserver {
  /** Every request to a model as it ends: provider, model, outcome (`ok` or the kind), status, time. */
  attempt?(event: LlmAttemptEvent): void;
  /** A round a model answered: who, tokens in and out, time with retries and waits, attempts. */
  round?(round: PlanRound): void;
  /** A round no model answered (a PlannerUnavailableError follows). Not called on abort. */
  unavailable?(attempts: readonly PlanAttempt[]): void;
}

export interface ChainOptions {
  /** The primary first, then the fallbacks in order. */
  readonly providers: readonly LlmProvider[];
  /** Retries of one provider after a retryable failure (429, 5xx, timeout). @default 2 */
  readonly retries?: number;
  readonly backoff?: Partial<BackoffOptions>;
  /** Waits `ms`, rejecting when `signal` aborts. @default node:timers/promises setTimeout */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1), for the jitter. @default Math.random */
  readonly random?: () => number;
  readonly observer?: LlmObserver;
  readonly logger?: Logger;
}

/** A round's answer, and what it took. */
interface ChainAnswer {
  readonly response: LlmResponse;
  readonly round: PlanRound;
}

/**
 * Retries and failover. Each provider in turn: a retryable failure (rate limited, server,
 * timeout) is retried up to `retries` times with exponential backoff and full jitter
 * (base 500 ms, cap 8 s), or after exactly the server's `Retry-After` when it gave one (a
 * wait past 30 s is not taken: the next provider is tried at once). Any other failure, or
 * the last retry's, moves on to the next provider. An abort stops everything at once, and
 * is thrown as the `aborted` LlmError. When no provider answers: PlannerUnavailableError,
 * whose message lists what was tried.
 */
export class ProviderChain {
  readonly #providers: readonly LlmProvider[];
  readonly #retries: number;
  readonly #backoff: BackoffOptions;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #observer: LlmObserver | undefined;
  readonly #log: Logger;

  constructor(options: ChainOptions) {
    this.#providers = [...options.providers];
    this.#retries = options.retries ?? 2;
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.#sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.#random = options.random ?? Math.random;
    this.#observer = options.observer;
    this.#log = options.logger ?? silentLogger();
  }

  /** The providers, primary first. */
  get providers(): readonly LlmProvider[] {
    return this.#providers;
  }

  /**
   * @throws LlmError of kind `aborted` when `request.signal` fires
   * @throws PlannerUnavailableError when no provider answered
   */
  async complete(request: LlmRequest): Promise<ChainAnswer> {
    const run = new ChainRun(request, this.#observer, this.#log);
    for (const [p, provider] of this.#providers.entries()) {
      for (let retry = 0; ; retry++) {
        const outcome = await run.attempt(provider, {
          retry: retry > 0,
          failover: p > 0 && retry === 0,
        });
        // `instanceof Error`, not LlmError: a generated class does not narrow the else branch
        if (outcome instanceof Error) {
          const wait = this.#nextWait(outcome, retry);
          if (wait === undefined) break;
          await this.#wait(wait, request.signal, provider);
          continue;
        }
        return { response: outcome, round: run.round(outcome) };
      }
    }
    throw run.unavailable();
  }

  /** The wait before retrying after `err`, or undefined: go on to the next provider. */
  #nextWait(err: LlmError, retry: number): number | undefined {
    if (!err.retryable || retry >= this.#retries) return undefined;
    return retryDelay(retry, err, this.#random, this.#backoff);
  }

  async #wait(ms: number, signal: AbortSignal, provider: LlmProvider): Promise<void> {
    try {
      if (signal.aborted) throw signal.reason;
      await this.#sleep(ms, signal);
    } catch (err) {
      if (!signal.aborted) throw err;
      throw new LlmError('aborted', provider.name, 'aborted while waiting to retry', {
        cause: err,
        summary: 'aborted',
      });
    }
  }
}

/** The bookkeeping of one round: attempts, their summaries, the text-reset rule. */
class ChainRun {
  readonly #request: LlmRequest;
  readonly #observer: LlmObserver | undefined;
  readonly #log: Logger;
  readonly #started = performance.now();
  readonly #attempts: PlanAttempt[] = [];
  readonly #tried: { label: string; summary: string }[] = [];
  #textSent = false;

  constructor(request: LlmRequest, observer: LlmObserver | undefined, log: Logger) {
    this.#request = request;
    this.#observer = observer;
    this.#log = log;
  }

  /** One request; its answer, or the LlmError it failed with (an abort is thrown). */
  async attempt(
    provider: LlmProvider,
    where: { retry: boolean; failover: boolean },
  ): Promise<LlmResponse | LlmError> {
    const request = this.#request;
    if (request.signal.aborted) throw abortedBefore(provider, request.signal.reason);
    if (this.#textSent) this.#notify(() => request.onTextReset?.());
    this.#textSent = false;
    const onText = request.onText;
    const started = performance.now();
    try {
      const response = await provider.complete({
        ...request,
        ...(onText ? { onText: (d: string) => ((this.#textSent = true), onText(d)) } : {}),
      });
      this.#record(provider, { outcome: 'ok' }, started, where);
      return response;
    } catch (err) {
      const e = asLlmError(err, provider);
      this.#record(provider, failure(e), started, where);
      this.#tried.push({ label: label(provider), summary: e.options.summary ?? e.kind });
      const fields = { provider: provider.name, model: provider.model, outcome: e.kind };
      if (e.kind === 'aborted') {
        this.#log.debug(fields, e.message);
        throw e;
      }
      this.#log.warn({ ...fields, status: e.options.status }, e.message);
      return e;
    }
  }

  round(response: LlmResponse): PlanRound {
    const round: PlanRound = {
      provider: response.provider,
      model: response.model,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      durationMs: performance.now() - this.#started,
      attempts: [...this.#attempts],
    };
    this.#notify(() => this.#observer?.round?.(round));
    return round;
  }

  unavailable(): PlannerUnavailableError {
    const attempts = [...this.#attempts];
    this.#notify(() => this.#observer?.unavailable?.(attempts));
    return new PlannerUnavailableError(attempts, triedList(this.#tried));
  }

  #record(
    provider: LlmProvider,
    result: Pick<PlanAttempt, 'outcome' | 'status' | 'message'>,
    started: number,
    where: { retry: boolean; failover: boolean },
  ): void {
    const attempt: PlanAttempt = {
      provider: provider.name,
      model: provider.model,
      ...result,
      durationMs: performance.now() - started,
    };
    const index = this.#attempts.length;
    this.#attempts.push(attempt);
    this.#notify(() => this.#observer?.attempt?.({ ...attempt, index, ...where }));
  }

  #notify(call: () => void): void {
    try {
      call();
    } catch (err) {
      this.#log.warn({ err }, 'an LLM observer hook threw; ignored');
    }
  }
}

function failure(e: LlmError): Pick<PlanAttempt, 'outcome' | 'status' | 'message'> {
  return {
    outcome: e.kind,
    ...(e.options.status === undefined ? {} : { status: e.options.status }),
    message: e.message,
  };
}

/** A provider that broke its contract (threw something else) is a bad response. */
function asLlmError(err: unknown, provider: LlmProvider): LlmError {
  if (err instanceof LlmError) return err;
  const what = err instanceof Error ? err.message : String(err);
  return new LlmError('bad_response', provider.name, what, {
    cause: err,
    summary: 'failed',
  });
}

function abortedBefore(provider: LlmProvider, reason: unknown): LlmError {
  return new LlmError('aborted', provider.name, 'aborted', {
    cause: reason,
    summary: 'aborted',
  });
}

/** `openai (gpt-4o-mini at api.openai.com)`. */
function label(p: LlmProvider): string {
  return `${p.name} (${p.model}${p.origin === undefined ? '' : ` at ${p.origin}`})`;
}

/**
 * `no model could be reached: openai (gpt-4o-mini at api.openai.com) 429 rate limited x3;
 * ollama (llama3.1 at 127.0.0.1:11434) connection refused`.
 */
export function unavailableMessage(tried: readonly { label: string; summary: string }[]): string {
  return errorMessage('planner_unavailable', { tried: triedList(tried) });
}

/** What was tried, for `planner_unavailable`'s `{tried}`: each model and how it failed. */
function triedList(tried: readonly { label: string; summary: string }[]): string {
  if (tried.length === 0) return 'none is configured';
  const parts: string[] = [];
  let i = 0;
  while (i < tried.length) {
    const who = tried[i]!.label;
    const said: string[] = [];
    for (; i < tried.length && tried[i]!.label === who;) {
      const summary = tried[i]!.summary;
      let n = 0;
      while (i < tried.length && tried[i]!.label === who && tried[i]!.summary === summary) {
        n++;
        i++;
      }
      said.push(n > 1 ? `${summary} x${n}` : summary);
    }
    parts.push(`${who} ${said.join(', ')}`);
  }
  return parts.join('; ');
}
