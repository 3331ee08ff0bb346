/**
 * Tiny benchmark harness. Every figure is printed next to a baseline measured in the same
 * run on the same machine, so results read as ratios rather than machine-dependent
 * absolutes. Suites live in `bench/<area>.bench.ts` and export `run(ctx)`.
 */
export interface BenchContext {
  /** Prints a section heading. */
  section(title: string): void;
  /** Records one figure; `baseline` (same unit) turns it into a printed ratio. */
  figure(
    name: string,
    value: number,
    unit: string,
    opts?: { baseline?: number; target?: string },
  ): void;
}

/**
 * `BENCH_SMOKE=1` (`npm run bench:smoke`, run by CI): every suite once, at token sizes, so a
 * suite that no longer runs (a schema, a path or a flag that moved under it) fails a
 * submission instead of the next person who measures. A smoke run's figures measure nothing.
 */
export const SMOKE = process.env['BENCH_SMOKE'] === '1';

/** A suite's rounds: 1 in a smoke run, else `BENCH_ROUNDS` when set, else `normal`. */
export function benchRounds(normal: number): number {
  if (SMOKE) return 1;
  const set = process.env['BENCH_ROUNDS'];
  if (set === undefined || set === '') return normal;
  const rounds = Number(set);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new Error(
      `BENCH_ROUNDS must be a whole number of at least 1, not ${JSON.stringify(set)}`,
    );
  }
  return rounds;
}

/** A size (calls, rows, runs, seconds): `smoke` in a smoke run, else `normal`. */
export function benchSize(normal: number, smoke: number): number {
  return SMOKE ? smoke : normal;
}

export interface BenchSuite {
  run(ctx: BenchContext): Promise<void>;
}

/** Measures how many times `fn` completes per second over roughly `ms` milliseconds. */
export function opsPerSecond(fn: () => void, ms = 500): number {
  let n = 0;
  const batch = 1000;
  const start = process.hrtime.bigint();
  const limit = BigInt(benchSize(ms, Math.min(ms, 20))) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < limit) {
    for (let i = 0; i < batch; i++) fn();
    n += batch;
    elapsed = process.hrtime.bigint() - start;
  }
  return n / (Number(elapsed) / 1e9);
}

/** One async operation a throughput or latency figure is made of. */
export type Call = () => Promise<void>;

/** `total` calls spread over `concurrency` lanes, each lane one call at a time; calls/s. */
export async function throughput(call: Call, total: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await call();
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** Percentile of a sorted-in-place array of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  values.sort((a, b) => a - b);
  const idx = Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1));
  return values[idx] ?? NaN;
}

export function createConsoleContext(): BenchContext {
  return {
    section(title) {
      console.log(`\n## ${title}`);
    },
    figure(name, value, unit, opts = {}) {
      const fmt = (v: number) =>
        Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(2);
      let line = `  ${name.padEnd(48)} ${fmt(value).padStart(14)} ${unit}`;
      if (opts.baseline !== undefined)
        line += `   (${(value / opts.baseline).toFixed(2)}x baseline)`;
      if (opts.target) line += `   target ${opts.target}`;
      console.log(line);
    },
  };
}
