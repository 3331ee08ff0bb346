import { randomFillSync } from 'node:crypto';

/**
 * Random bytes from the kernel's CSPRNG, drawn 4 KiB at a time: one `getrandom` for many of
 * the ids every call takes (a decision id, a span id, a reply token) instead of one or two
 * per call, which cost the brain ~16 us a call (docs/benchmarks.md, "Brain: the full HTTP
 * path"). Same CSPRNG; no byte is handed out twice.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

/** `n` (at most 4096) fresh random bytes: a view into the pool, the caller's to overwrite. */
export function pooledRandomBytes(n: number): Buffer {
  if (used + n > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}
