import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files run at once: one per core. Two per core measured faster on an idle 2-core
 * machine (179 s against 265 s, ADR 0086 addendum 2) but, under two busy loops, left the
 * JetStream job tests' probe jobs queued past their waits; TEST_WORKERS=4 runs it that way.
 * CI or a busy machine sets TEST_WORKERS (a count, or a share like "50%").
 */
const workers = process.env.TEST_WORKERS ?? Math.max(1, availableParallelism());

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
