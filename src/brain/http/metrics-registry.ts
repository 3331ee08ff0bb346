import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  METRIC_SERIES,
  type CounterName,
  type GaugeName,
  type HistogramName,
  type LabelsOf,
} from './metric-series.js';

/** How often the event-loop lag is sampled, ms. */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * The one home of the brain's Prometheus metrics: a registry of its own (never prom-client's
 * global one, so two brains in one process or one test do not share series) with the
 * process's default metrics, on which every series is made from its entry in
 * `METRIC_SERIES`. The HTTP and gateway series (`BrainMetrics`) and the planner's
 * (`LlmMetrics`) take theirs from here; `GET /metrics` renders it. A series appears in the
 * exposition in the order it was made.
 */
export class MetricsRegistry {
  readonly #registry = new Registry();

  constructor() {
    collectDefaultMetrics({
      register: this.#registry,
      prefix: 'caesar_',
      // The event-loop lag histogram's timer: prom-client's 10 ms default woke an idle brain
      // 100 times a second, about two thirds of its idle CPU (docs/benchmarks.md, "Idle
      // CPU"); at 100 ms a loop blocked for longer than that is still seen every time.
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
  }

  counter<N extends CounterName>(name: N): Counter<LabelsOf<N>> {
    const { help, labels } = METRIC_SERIES[name];
    return new Counter({ name, help, labelNames: labels, registers: [this.#registry] });
  }

  histogram<N extends HistogramName>(name: N): Histogram<LabelsOf<N>> {
    const { help, labels, buckets } = METRIC_SERIES[name];
    const registers = [this.#registry];
    return new Histogram({ name, help, labelNames: labels, buckets: [...buckets], registers });
  }

  /** A gauge whose values `read` gives at scrape time, `[label values, value]` each. */
  gauge<N extends GaugeName>(
    name: N,
    read: () => Iterable<readonly [labels: Record<LabelsOf<N>, string>, value: number]>,
  ): void {
    const { help, labels } = METRIC_SERIES[name];
    new Gauge({
      name,
      help,
      labelNames: labels,
      registers: [this.#registry],
      collect(this: Gauge<LabelsOf<N>>) {
        this.reset();
        for (const [values, value] of read()) this.set(values, value);
      },
    });
  }

  /** The Prometheus text exposition of every series. */
  render(): Promise<string> {
    return this.#registry.metrics();
  }

  /** Content type of `render()`'s output. */
  get contentType(): string {
    return this.#registry.contentType;
  }
}
