import { describe, expect, test } from 'vitest';
import { replyToken } from '../../../../src/brain/dispatch/reply-mux.js';

// ADR 0060: the token that ends a reply subject is 128 bits from the CSPRNG, so a client that
// may publish into the brain's inbox cannot write to a reply subject it has not seen.

const N = 20_000;
const tokens = Array.from({ length: N }, () => replyToken());
const bytes = tokens.map((t) => Buffer.from(t, 'base64url'));

describe('reply tokens', () => {
  test('22 base64url characters: 128 bits, valid as one subject token', () => {
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const b of bytes) expect(b.length).toBe(16);
  });

  test('none repeats, and none follows from the one before', () => {
    expect(new Set(tokens).size).toBe(N);
    // a counter, or a random start plus a step, shows as a repeated difference
    const value = (b: Buffer) => BigInt(`0x${b.toString('hex')}`);
    const steps = new Set(bytes.slice(1).map((b, i) => value(b) - value(bytes[i]!)));
    expect(steps.size).toBe(N - 1);
  });

  test('every one of the 128 bit positions is set about half the time', () => {
    const ones = new Array<number>(128).fill(0);
    for (const b of bytes) {
      for (let bit = 0; bit < 128; bit++) if ((b[bit >> 3]! >> (7 - (bit & 7))) & 1) ones[bit]!++;
    }
    // binomial(20000, 0.5): sd ~71; 6 sd either side never fails by chance
    for (const n of ones) expect(Math.abs(n - N / 2)).toBeLessThan(430);
  });
});
