import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files share their fork's module cache: each file re-importing zod, fastify and
    // the brain cost two minutes of the suite (issue 13). No test mocks a module; the few
    // that stub env or console restore them in afterEach.
    isolate: false,
    // Integration suites each start their own nats-server; two cores run two files at once.
    maxWorkers: 2,
  },
});
