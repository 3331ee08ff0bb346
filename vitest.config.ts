import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Integration suites each start their own nats-server; two cores run two files at once.
    maxWorkers: 2,
  },
});
