import { expect, test } from 'vitest';
import { runTools } from '../../../src/legion/index.js';
import { silentLogger } from '../../../src/log/index.js';
import { createEchoTool } from '../../fixtures/tools.js';
import { startNats } from '../../helpers/nats.js';

// `runTools` (what `caesar legion serve-tool` runs) stops gracefully on SIGINT and SIGTERM.
// Whoever reads its "ready" may signal at once: a worker preempted between writing that line
// and taking the signals died of a plain SIGTERM, 3-6 times in 25 beside busy loops. So the
// handlers are in place when `onReady` runs.

test('onReady runs with the SIGTERM and SIGINT handlers in place, and SIGTERM then stops it with 0', async () => {
  await using nats = await startNats();
  const before = {
    SIGTERM: new Set(process.listeners('SIGTERM')),
    SIGINT: new Set(process.listeners('SIGINT')),
  };
  const added = (sig: 'SIGTERM' | 'SIGINT') =>
    process.listeners(sig).filter((l) => !before[sig].has(l));
  const atReady: { SIGTERM: number; SIGINT: number }[] = [];
  try {
    const code = await runTools([createEchoTool()], {
      bus: { servers: nats.url },
      logger: silentLogger(),
      graceMs: 1000,
      onReady: () => {
        atReady.push({ SIGTERM: added('SIGTERM').length, SIGINT: added('SIGINT').length });
        // what the signal would run, without signalling the test process itself
        for (const handler of added('SIGTERM')) queueMicrotask(() => handler('SIGTERM'));
      },
    });
    expect(atReady).toEqual([{ SIGTERM: 1, SIGINT: 1 }]);
    expect(code).toBe(0);
  } finally {
    // a second signal would exit the process: those handlers must not outlive the test
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      for (const l of added(sig)) process.off(sig, l as (...args: unknown[]) => void);
    }
  }
});
