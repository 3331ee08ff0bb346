import { afterEach, expect, test, vi } from 'vitest';

// The harness reads BENCH_SMOKE once, when a suite imports it: each case imports it afresh.
async function harness(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
  return import('../../../bench/harness.js');
}

afterEach(() => {
  vi.unstubAllEnvs();
});

test('a smoke run takes one round and the token size, whatever BENCH_ROUNDS says', async () => {
  const h = await harness({ BENCH_SMOKE: '1', BENCH_ROUNDS: '7' });
  expect(h.SMOKE).toBe(true);
  expect(h.benchRounds(5)).toBe(1);
  expect(h.benchSize(8_000, 200)).toBe(200);
});

test('a measuring run takes BENCH_ROUNDS when set, else the suite default, and the full size', async () => {
  const set = await harness({ BENCH_SMOKE: undefined, BENCH_ROUNDS: '2' });
  expect(set.SMOKE).toBe(false);
  expect(set.benchRounds(5)).toBe(2);
  expect(set.benchSize(8_000, 200)).toBe(8_000);
  const unset = await harness({ BENCH_SMOKE: '0', BENCH_ROUNDS: '' });
  expect(unset.SMOKE).toBe(false);
  expect(unset.benchRounds(5)).toBe(5);
});

test('a BENCH_ROUNDS that is not a whole number of at least 1 is refused by name', async () => {
  for (const bad of ['0', '-1', '2.5', 'five']) {
    const h = await harness({ BENCH_SMOKE: undefined, BENCH_ROUNDS: bad });
    expect(() => h.benchRounds(5)).toThrow(`BENCH_ROUNDS must be a whole number of at least 1`);
  }
});

test('opsPerSecond measures for 20 ms at most in a smoke run', async () => {
  const h = await harness({ BENCH_SMOKE: '1' });
  const started = performance.now();
  expect(h.opsPerSecond(() => undefined, 5_000)).toBeGreaterThan(0);
  // 5 s asked for; a smoke run stops after its 20 ms (the batch of 1,000 calls on top)
  expect(performance.now() - started).toBeLessThan(2_000);
});
