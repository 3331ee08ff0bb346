import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run at once: two per core. An integration file waits more than it computes (a
 * process starting, a sweep, a reply), so one per core left the cores idle: on the quiet
 * 2-core machine 2 workers took 265 s and 4 took 179 s (ADR 0086, addendum 2). Taken back
 * once for JetStream job tests that failed beside two busy loops; addendum 3 found and fixed
 * the two load bugs behind such failures, and the whole suite passed at 4 beside the loops.
 * CI or a busy machine sets TEST_WORKERS (a count, or a share like "50%").
 */
const workers = process.env.TEST_WORKERS ?? Math.max(2, 2 * availableParallelism());

/** TEST_CPU_LOG=<file>: a JSON line of CPU and wall seconds per test file (test/setup/cpu-log.ts). */
const cpuLog = process.env.TEST_CPU_LOG ? ['test/setup/cpu-log.ts'] : [];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    maxWorkers: workers,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // A unit test starts no process and opens no listening socket (issue 30).
          setupFiles: ['test/setup/unit-no-process.ts', ...cpuLog],
          pool: 'forks',
          // Test files share their fork's module cache: each file re-importing zod, fastify
          // and the brain cost two minutes of the suite (issue 13). No test mocks a module;
          // the few that stub env or console restore them in afterEach.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          setupFiles: cpuLog,
          include: ['test/integration/**/*.test.ts', 'test/fuzz/**/*.test.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
    ],
  },
});
