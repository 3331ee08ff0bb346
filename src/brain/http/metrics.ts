import type { Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from './metrics-registry.js';
import type { CallOutcome } from '../api/index.js';

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Where the `caesar_tool_instances` gauge reads `[tool, live instances]` at scrape time. */
type InstanceSource = () => Iterable<readonly [tool: string, count: number]>;

/**
 * The gateway's and the HTTP server's Prometheus series, on the brain's `MetricsRegistry`
 * (which the planner's `LlmMetrics` shares). The core calls the recording methods;
 * `GET /metrics` renders the registry.
 */
export class BrainMetrics {
  readonly registry = new MetricsRegistry();
  readonly #toolCalls = this.registry.counter('caesar_tool_calls_total');
  readonly #toolCallDuration = this.registry.histogram('caesar_tool_call_duration_seconds');
  readonly #decisions = this.registry.counter('caesar_policy_decisions_total');
  readonly #dispatch = this.registry.histogram('caesar_dispatch_duration_seconds');
  readonly #auditAppend: Histogram = this.registry.histogram(
    'caesar_audit_append_duration_seconds',
  );
  readonly #chat = this.registry.histogram('caesar_chat_duration_seconds');
  readonly #repliesRefused: Counter<'tool' | 'reason'>;
  readonly #grantsResent: Counter<'tool'>;
  readonly #httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly #httpDuration: Histogram<'method' | 'route'>;
  #instances: InstanceSource = () => [];

  constructor() {
    this.registry.gauge('caesar_tool_instances', () =>
      [...this.#instances()].map(([tool, count]) => [{ tool }, count] as const),
    );
    this.#repliesRefused = this.registry.counter('caesar_replies_refused_total');
    this.#grantsResent = this.registry.counter('caesar_grants_resent_total');
    this.#httpRequests = this.registry.counter('caesar_http_requests_total');
    this.#httpDuration = this.registry.histogram('caesar_http_request_duration_seconds');
  }

  /** One finished tool call (any outcome), timed through the whole gate. */
  toolCall(tool: string, outcome: CallOutcome, durationMs: number): void {
    this.#toolCalls.inc({ tool, outcome });
    this.#toolCallDuration.observe({ tool }, durationMs / 1000);
  }

  /** One policy decision; `rule` is the deciding rule's id (`default_deny` when none). */
  decision(rule: string, outcome: string): void {
    this.#decisions.inc({ rule, outcome });
  }

  /** One dispatch round trip. */
  dispatch(tool: string, durationMs: number): void {
    this.#dispatch.observe({ tool }, durationMs / 1000);
  }

  /** One call sent again with a signed grant: an instance its MACed grant did not name took it. */
  grantResent(tool: string): void {
    this.#grantsResent.inc({ tool });
  }

  /** One message on a call's reply subject refused as its answer; `reason` from a fixed set. */
  replyRefused(tool: string, reason: string): void {
    this.#repliesRefused.inc({ tool, reason });
  }

  /** One durable audit append. */
  auditAppend(durationMs: number): void {
    this.#auditAppend.observe(durationMs / 1000);
  }

  /** One answered chat message; `planner` is `intent`, `llm` or `none`. */
  chat(planner: string, durationMs: number): void {
    this.#chat.observe({ planner }, durationMs / 1000);
  }

  /** Sets where `caesar_tool_instances` reads its values (the registry), replacing any before. */
  setInstanceSource(fn: InstanceSource): void {
    this.#instances = fn;
  }

  /** One HTTP request; `route` is the route pattern (`/v1/tools/:name/invoke`), never a URL. */
  httpRequest(method: string, route: string, status: number, durationMs: number): void {
    const m = HTTP_METHODS.has(method) ? method : 'OTHER';
    this.#httpRequests.inc({ method: m, route, status: String(status) });
    this.#httpDuration.observe({ method: m, route }, durationMs / 1000);
  }

  /** The Prometheus text exposition of every series. */
  render(): Promise<string> {
    return this.registry.render();
  }

  /** Content type of `render()`'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
