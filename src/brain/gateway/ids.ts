import { randomBytes } from 'node:crypto';
import { pooledRandomBytes } from '../dispatch/random-pool.js';

let lastMs = 0;
let seq = 0;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Decision ids sort by
 * time, so audit rows of one period sit together in the `decision_id` index. Within one
 * millisecond a 12-bit counter in `rand_a` keeps ids from this process increasing.
 */
export function newDecisionId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    seq = 0;
  } else if (++seq > 0xfff) {
    lastMs += 1;
    seq = 0;
  }
  const b = pooledRandomBytes(16);
  const ms = lastMs;
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | ((seq >>> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = 0x80 | ((b[8] ?? 0) & 0x3f);
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Confirmation ids: 128 random bits, base64url. Unguessable, single-use. Never one that starts
 * with `-`: `caesar reject -NyO…` would read it as an option (1 id in 64 did), so such a draw
 * is drawn again (the ids left are as unguessable: 6 bits of 128 lose 1/64 of their values).
 */
export function newConfirmationId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * A W3C `traceparent` rooted at a decision: the trace id is the decision id's 128 bits, so
 * a trace collector and the audit log name a call the same way; the span id is random.
 */
export function traceparentFor(decisionId: string): string {
  const traceId = decisionId.replaceAll('-', '').toLowerCase();
  return `00-${traceId}-${pooledRandomBytes(8).toString('hex')}-01`;
}
