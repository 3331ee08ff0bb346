import { verify } from 'node:crypto';
import { nkeyAuthenticator } from '@nats-io/nats-core';
import { createAccount, createOperator, createUser, fromPublic, fromSeed } from '@nats-io/nkeys';
import { describe, expect, test } from 'vitest';
import {
  newNkeyUser,
  nkeyPrivateKey,
  nkeyPublicKey,
  nkeySeedKey,
  nkeySign,
} from '../../../src/protocol/nkey-ed25519.js';

// The brain, workers and CLI make, read and sign with NKEYs through node:crypto (ADR 0103).
// The nkeys library (what nats-server's own tools and nats.js use) is the reference: every
// key and signature here must be the one it makes, byte for byte.

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('NKEYs through node:crypto, held to the nkeys library', () => {
  test("a seed's public key is the library's, for 20 seeds of each role", () => {
    for (const make of [createUser, createAccount, createOperator]) {
      for (let i = 0; i < 20; i++) {
        const kp = make();
        expect(nkeySeedKey(kp.getSeed()).publicKey).toBe(kp.getPublicKey());
      }
    }
  });

  test("the login nonce's signature is nats.js's own, to the byte", () => {
    for (let i = 0; i < 20; i++) {
      const kp = createUser();
      const { publicKey, key } = nkeySeedKey(kp.getSeed());
      const nonce = `nonce-${i}-${Math.random().toString(36)}`;
      const theirs = nkeyAuthenticator(kp.getSeed())(nonce) as { nkey: string; sig: string };
      expect({ nkey: publicKey, sig: nkeySign(key, new TextEncoder().encode(nonce)) }).toEqual(
        theirs,
      );
    }
  });

  test('a new user is a valid NKEY: the library reads its seed and checks its signatures', () => {
    const user = newNkeyUser();
    expect(text(user.seed)).toMatch(/^SU[A-Z2-7]{56}$/);
    expect(user.publicKey).toMatch(/^U[A-Z2-7]{55}$/);
    const kp = fromSeed(user.seed);
    expect(kp.getPublicKey()).toBe(user.publicKey);
    const message = new TextEncoder().encode('caesar');
    const signature = Buffer.from(nkeySign(user.key, message), 'base64');
    expect(fromPublic(user.publicKey).verify(message, signature)).toBe(true);
    expect(verify(null, message, nkeyPublicKey(user.publicKey), signature)).toBe(true);
  });

  test('two new users never share a seed', () => {
    const seeds = new Set(Array.from({ length: 100 }, () => text(newNkeyUser().seed)));
    expect(seeds.size).toBe(100);
  });

  test('a seed with a wrong checksum, or not a seed, is refused', () => {
    const seed = text(createUser().getSeed());
    const flipped = seed.slice(0, 10) + (seed[10] === 'A' ? 'B' : 'A') + seed.slice(11);
    expect(() => nkeySeedKey(new TextEncoder().encode(flipped))).toThrow();
    expect(() => nkeySeedKey(new TextEncoder().encode(createUser().getPublicKey()))).toThrow();
  });

  test('a user key is required where a user key is meant', () => {
    expect(() => nkeyPrivateKey(createAccount().getSeed())).toThrow(
      'the NKEY seed is not a user seed (SU…)',
    );
    const kp = createUser();
    expect(nkeyPrivateKey(kp.getSeed()).publicKey).toBe(kp.getPublicKey());
  });
});
