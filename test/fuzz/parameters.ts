import type { Parameters } from 'fast-check';

/**
 * The fuzz tests' time budget per property. The runs stop at this bound (the property
 * still passes if nothing failed), so the suite's length does not depend on the machine's
 * speed. `FUZZ_SEED` replays a reported failure; `FUZZ_MS` runs longer.
 */
export const FUZZ_TIME_MS = Number(process.env.FUZZ_MS ?? 8_000);

export function fuzzParameters<T>(p: Parameters<T> = {}): Parameters<T> {
  const seed = process.env.FUZZ_SEED;
  return {
    interruptAfterTimeLimit: FUZZ_TIME_MS,
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...p,
  };
}
