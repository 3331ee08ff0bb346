import { createRequire } from 'node:module';
import type * as perfHooks from 'node:perf_hooks';
import { expect, test } from 'vitest';
import { LlmMetrics } from '../../../../src/brain/daemon/llm-metrics.js';
import { BrainMetrics } from '../../../../src/brain/http/index.js';
import { METRIC_SERIES } from '../../../../src/brain/http/metric-series.js';
import { EVENT_LOOP_SAMPLE_MS } from '../../../../src/brain/http/metrics-registry.js';

// Issue 30: one home for the brain's Prometheus series. What /metrics shows (beyond the
// process's default metrics) is exactly the table, with the table's help text and kind.
test('/metrics shows every series of METRIC_SERIES and nothing else of its own', async () => {
  const metrics = new BrainMetrics();
  new LlmMetrics(metrics.registry);
  const text = await metrics.render();
  const typed = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)]
    .map(([, name, kind]) => [name, kind] as const)
    .filter(([name]) => !/^caesar_(process|nodejs)_/.test(name!));
  expect(typed).toEqual(Object.entries(METRIC_SERIES).map(([name, s]) => [name, s.kind]));
  for (const [name, s] of Object.entries(METRIC_SERIES)) {
    expect(text).toContain(`# HELP ${name} ${s.help}\n`);
  }
});

// The event-loop lag histogram's timer wakes the brain at each sample: prom-client's 10 ms
// default cost an idle brain 100 wake-ups a second (docs/benchmarks.md, "Idle CPU").
test('the event-loop lag is sampled every EVENT_LOOP_SAMPLE_MS (100 ms), not every 10 ms', async () => {
  const require = createRequire(import.meta.url);
  // prom-client reads the CommonJS module object at the call, so the wrapper sees the option
  const hooks = require('node:perf_hooks') as typeof perfHooks;
  const original = hooks.monitorEventLoopDelay;
  const asked: (number | undefined)[] = [];
  hooks.monitorEventLoopDelay = (options) => {
    asked.push(options?.resolution);
    return original(options);
  };
  try {
    const metrics = new BrainMetrics();
    expect(await metrics.render()).toMatch(/^caesar_nodejs_eventloop_lag_p99_seconds \d/m);
  } finally {
    hooks.monitorEventLoopDelay = original;
  }
  expect(EVENT_LOOP_SAMPLE_MS).toBe(100);
  expect(asked).toEqual([EVENT_LOOP_SAMPLE_MS]);
});
