/**
 * Every Prometheus series the brain keeps, in one table: name, kind, help text, label names
 * and (for histograms) buckets. `MetricsRegistry` makes a series from its entry, so a series
 * is declared once, here, and `GET /metrics` shows what this table says. Label values come
 * only from route patterns, tool names the core passes, policy rule ids and configured
 * provider and model names, so cardinality stays bounded.
 */

/** 0.5 ms .. 30 s: a local worker answers in a millisecond, a backend call may take seconds. */
const DISPATCH = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
/** 50 µs .. 1 s: one group commit (insert + fsync). */
const AUDIT = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];
/** 5 ms .. 2 min: an intent match is instant, an LLM turn with tool calls is not. */
const CHAT = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const HTTP = [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120];
/** 50 ms .. 2 min: a local model on a Pi is slow, a hosted one answers in a second or two. */
const MODEL = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

interface SeriesSpec {
  readonly kind: 'counter' | 'histogram' | 'gauge';
  readonly help: string;
  readonly labels: readonly string[];
  /** Histograms only. */
  readonly buckets?: readonly number[];
}

/** A counter's entry: its help text and label names. */
function counter<const L extends readonly string[]>(help: string, labels: L) {
  return { kind: 'counter', help, labels } as const;
}

/** A gauge's entry, read at scrape time. */
function gauge<const L extends readonly string[]>(help: string, labels: L) {
  return { kind: 'gauge', help, labels } as const;
}

/** A histogram's entry, with its buckets in seconds. */
function histogram<const L extends readonly string[]>(
  help: string,
  labels: L,
  buckets: readonly number[],
) {
  return { kind: 'histogram', help, labels, buckets } as const;
}

export const METRIC_SERIES = {
  caesar_tool_calls_total: counter(
    'Tool calls by tool and outcome (ok, failed, denied, rate_limited, ...).',
    ['tool', 'outcome'],
  ),
  caesar_tool_call_duration_seconds: histogram(
    'Time of one tool call through the gate (decision, audit, dispatch), by tool.',
    ['tool'],
    DISPATCH,
  ),
  caesar_policy_decisions_total: counter(
    'Policy decisions by the rule that decided and the outcome.',
    ['rule', 'outcome'],
  ),
  caesar_dispatch_duration_seconds: histogram(
    'Time from dispatch to reply (or failure) of one tool call.',
    ['tool'],
    DISPATCH,
  ),
  caesar_audit_append_duration_seconds: histogram(
    'Time until an audit append was durable.',
    [],
    AUDIT,
  ),
  caesar_chat_duration_seconds: histogram(
    'Time to answer one chat message, by what produced the reply.',
    ['planner'],
    CHAT,
  ),
  caesar_tool_instances: gauge('Live instances per discovered tool, read at scrape time.', [
    'tool',
  ]),
  caesar_replies_refused_total: counter(
    "Messages on a call's reply subject refused as its answer (ADR 0060), by tool and why: malformed, unsigned, unknown_instance, no_key, untrusted_key, bad_signature, no_responders.",
    ['tool', 'reason'],
  ),
  caesar_grants_resent_total: counter(
    'Calls sent again with a signed (v1) grant because an instance the MACed (v2) grant did not name took the first (ADR 0108), by tool: instances serving before the brain listed them.',
    ['tool'],
  ),
  caesar_http_requests_total: counter('HTTP requests by method, route pattern and status.', [
    'method',
    'route',
    'status',
  ]),
  caesar_http_request_duration_seconds: histogram(
    'HTTP request duration by method and route pattern.',
    ['method', 'route'],
    HTTP,
  ),
  caesar_llm_requests_total: counter(
    'Requests to a model, by provider, model and outcome (ok, rate_limited, server, timeout, connect, auth, ...).',
    ['provider', 'model', 'outcome'],
  ),
  caesar_llm_retries_total: counter(
    'Requests that retried the same provider after a retryable failure.',
    ['provider', 'model'],
  ),
  caesar_llm_failovers_total: counter('Rounds that moved on to this fallback provider.', [
    'provider',
    'model',
  ]),
  caesar_llm_tokens_total: counter(
    'Tokens by provider, model and direction (in: prompt, out: completion).',
    ['provider', 'model', 'direction'],
  ),
  caesar_llm_request_duration_seconds: histogram(
    'Time of one request to a model (a streamed answer to its end).',
    ['provider', 'model'],
    MODEL,
  ),
  caesar_llm_round_duration_seconds: histogram(
    'Time of one planner round with its retries and waits, by the model that answered.',
    ['provider', 'model'],
    MODEL,
  ),
  caesar_llm_unavailable_total: counter('Planner rounds no configured model answered.', []),
} as const satisfies Record<string, SeriesSpec>;

type Series = typeof METRIC_SERIES;
type NameOf<K extends SeriesSpec['kind']> = {
  [N in keyof Series]: Series[N]['kind'] extends K ? N : never;
}[keyof Series];

export type CounterName = NameOf<'counter'>;
export type HistogramName = NameOf<'histogram'>;
export type GaugeName = NameOf<'gauge'>;
/** The label names the table gives series `N`. */
export type LabelsOf<N extends keyof Series> = Series[N]['labels'][number];
