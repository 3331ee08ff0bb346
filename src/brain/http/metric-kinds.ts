import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Counters and histograms on one registry, declared in one line each: name, help text,
 * label names (and buckets). The brain's series and the planner's are made the same way.
 */
export class MetricKinds {
  readonly #registers: Registry[];

  constructor(registry: Registry) {
    this.#registers = [registry];
  }

  counter<L extends string = never>(name: string, help: string, labelNames: L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: this.#registers });
  }

  histogram<L extends string = never>(
    name: string,
    help: string,
    labelNames: L[],
    buckets: number[],
  ): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: this.#registers });
  }
}
