import { collectDefaultMetrics, type Counter, Gauge, type Histogram, Registry } from 'prom-client';
import { MetricKinds } from './metric-kinds.js';
import type { CallOutcome } from '../api/index.js';

/** 0.5 ms .. 30 s: a local worker answers in a millisecond, a backend call may take seconds. */
const DISPATCH_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
/** 50 µs .. 1 s: one group commit (insert + fsync). */
const AUDIT_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];
/** 5 ms .. 2 min: an intent match is instant, an LLM turn with tool calls is not. */
const CHAT_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const HTTP_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120];

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Where the `caesar_tool_instances` gauge reads `[tool, live instances]` at scrape time. */
type InstanceSource = () => Iterable<readonly [tool: string, count: number]>;

/**
 * The brain's Prometheus metrics, on a registry of their own (never prom-client's global
 * one, so two brains in one process or one test do not share series). The core calls the
 * recording methods; `GET /metrics` renders the registry. Label values come only from route
 * patterns, tool names the core passes and policy rule ids, so cardinality stays bounded.
 */
export class BrainMetrics {
  readonly registry = new Registry();
  readonly #toolCalls: Counter<'tool' | 'outcome'>;
  readonly #toolCallDuration: Histogram<'tool'>;
  readonly #decisions: Counter<'rule' | 'outcome'>;
  readonly #dispatch: Histogram<'tool'>;
  readonly #auditAppend: Histogram;
  readonly #chat: Histogram<'planner'>;
  readonly #httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly #httpDuration: Histogram<'method' | 'route'>;
  readonly #repliesRefused: Counter<'tool' | 'reason'>;
  #instances: InstanceSource = () => [];

  constructor() {
    const registers = [this.registry];
    const kinds = new MetricKinds(this.registry);
    collectDefaultMetrics({ register: this.registry, prefix: 'caesar_' });
    this.#toolCalls = kinds.counter(
      'caesar_tool_calls_total',
      'Tool calls by tool and outcome (ok, failed, denied, rate_limited, ...).',
      ['tool', 'outcome'],
    );
    this.#toolCallDuration = kinds.histogram(
      'caesar_tool_call_duration_seconds',
      'Time of one tool call through the gate (decision, audit, dispatch), by tool.',
      ['tool'],
      DISPATCH_BUCKETS,
    );
    this.#decisions = kinds.counter(
      'caesar_policy_decisions_total',
      'Policy decisions by the rule that decided and the outcome.',
      ['rule', 'outcome'],
    );
    this.#dispatch = kinds.histogram(
      'caesar_dispatch_duration_seconds',
      'Time from dispatch to reply (or failure) of one tool call.',
      ['tool'],
      DISPATCH_BUCKETS,
    );
    this.#auditAppend = kinds.histogram(
      'caesar_audit_append_duration_seconds',
      'Time until an audit append was durable.',
      [],
      AUDIT_BUCKETS,
    );
    this.#chat = kinds.histogram(
      'caesar_chat_duration_seconds',
      'Time to answer one chat message, by what produced the reply.',
      ['planner'],
      CHAT_BUCKETS,
    );
    const source = (): InstanceSource => this.#instances;
    new Gauge({
      name: 'caesar_tool_instances',
      help: 'Live instances per discovered tool, read at scrape time.',
      labelNames: ['tool'],
      registers,
      collect(this: Gauge<'tool'>) {
        this.reset();
        for (const [tool, count] of source()()) this.set({ tool }, count);
      },
    });
    this.#repliesRefused = kinds.counter(
      'caesar_replies_refused_total',
      "Messages on a call's reply subject refused as its answer (ADR 0060), by tool and why: malformed, unsigned, unknown_instance, no_key, untrusted_key, bad_signature, no_responders.",
      ['tool', 'reason'],
    );
    this.#httpRequests = kinds.counter(
      'caesar_http_requests_total',
      'HTTP requests by method, route pattern and status.',
      ['method', 'route', 'status'],
    );
    this.#httpDuration = kinds.histogram(
      'caesar_http_request_duration_seconds',
      'HTTP request duration by method and route pattern.',
      ['method', 'route'],
      HTTP_BUCKETS,
    );
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
  async render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Content type of `render()`'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
