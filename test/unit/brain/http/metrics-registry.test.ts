import { expect, test } from 'vitest';
import { LlmMetrics } from '../../../../src/brain/daemon/llm-metrics.js';
import { BrainMetrics } from '../../../../src/brain/http/index.js';
import { METRIC_SERIES } from '../../../../src/brain/http/metric-series.js';

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
