import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run at once: two per core. An integration file spends much of its time waiting
 * (a process starting, a sweep, a reply), so one per core left the cores idle: on the 2-core
 * machine, quiet, 2 workers took 265 s at 299 CPU-s and 4 took 179 s at 322 CPU-s (ADR 0086,
 * addendum 2). CI or a busy machine sets TEST_WORKERS (a count, or a share like "50%").
 */
const workers = process.env.TEST_WORKERS ?? Math.max(2, 2 * availableParallelism());

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
          setupFiles: ['test/setup/unit-no-process.ts'],
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
          include: ['test/integration/**/*.test.ts', 'test/fuzz/**/*.test.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
    ],
  },
});
