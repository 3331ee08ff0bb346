import { createHash } from 'node:crypto';
import { createUser } from '@nats-io/nkeys';
import { describe, expect, test } from 'vitest';
import { GrantSigner, grantNonce } from '../../../src/protocol/grant.js';
import { nkeyPublicKey } from '../../../src/protocol/nkey-ed25519.js';
import {
  ReplySigner,
  verifyReplySignature,
  type ReplyClaims,
} from '../../../src/protocol/reply-signature.js';

// ADR 0060: a worker signs each reply over the call's decision id, its grant's nonce, its own
// instance id and the digest of the outcome; changing any of them breaks the signature, and
// only the key of the instance the reply names verifies it.

const worker = createUser();
const other = createUser();
const signer = new ReplySigner(worker.getSeed());
const key = nkeyPublicKey(worker.getPublicKey());

const grant = new GrantSigner(createUser().getSeed()).sign({
  tool: 'call_service',
  input: { domain: 'lock', service: 'lock', target: { entity_id: 'lock.front_door' } },
  decisionId: '0193a2b4-aaaa-7bbb-8ccc-000000000001',
  deadline: 1_764_496_800_000,
  policySha256: 'a'.repeat(64),
});

const claims: ReplyClaims = {
  decisionId: '0193a2b4-aaaa-7bbb-8ccc-000000000001',
  nonce: grantNonce(grant)!,
  instanceId: 'Vh3kQ0instance',
  outcome: { success: true, result: { summary: 'Front door stayed unlocked.', changed: false } },
};

describe('signed replies', () => {
  test("a reply signed for its call verifies with the instance's key", () => {
    const sig = signer.sign(claims);
    expect(sig).toMatch(/^v1\.[A-Za-z0-9_-]{86}$/);
    expect(verifyReplySignature(sig, claims, key)).toBe(true);
  });

  test.each<[string, Partial<ReplyClaims>]>([
    ['decision id', { decisionId: '0193a2b4-aaaa-7bbb-8ccc-000000000002' }],
    [
      'grant nonce',
      { nonce: `${claims.nonce.slice(0, -1)}${claims.nonce.endsWith('A') ? 'B' : 'A'}` },
    ],
    ['instance id', { instanceId: 'Vh3kQ0other' }],
    [
      'result',
      {
        outcome: {
          success: true,
          result: { summary: 'Front door: unlocked -> locked.', changed: true },
        },
      },
    ],
    [
      'verdict',
      { outcome: { success: false, error: { code: 'timeout', message: 'x', retryable: true } } },
    ],
  ])('changing the %s breaks the signature', (_field, change) => {
    const sig = signer.sign(claims);
    expect(verifyReplySignature(sig, { ...claims, ...change }, key)).toBe(false);
  });

  test('a failure is bound by its error the same way', () => {
    const error = { code: 'backend_error' as const, message: 'HA: 500', retryable: true };
    const failed: ReplyClaims = { ...claims, outcome: { success: false, error } };
    const sig = signer.sign(failed);
    expect(verifyReplySignature(sig, failed, key)).toBe(true);
    const softened = { ...error, retryable: false };
    expect(
      verifyReplySignature(sig, { ...failed, outcome: { success: false, error: softened } }, key),
    ).toBe(false);
  });

  test('the result is bound by value, not by key order', () => {
    const sig = signer.sign({
      ...claims,
      outcome: { success: true, result: { b: [1, { d: 1, c: 2 }], a: null } },
    });
    const reordered: ReplyClaims = {
      ...claims,
      outcome: { success: true, result: { a: null, b: [1, { c: 2, d: 1 }] } },
    };
    expect(verifyReplySignature(sig, reordered, key)).toBe(true);
  });

  test("another instance's key does not verify it", () => {
    const sig = signer.sign(claims);
    expect(verifyReplySignature(sig, claims, nkeyPublicKey(other.getPublicKey()))).toBe(false);
    // nor does that instance's own signature pass as this one's
    const theirs = new ReplySigner(other.getSeed()).sign(claims);
    expect(verifyReplySignature(theirs, claims, key)).toBe(false);
  });

  test.each([
    '',
    'v1.',
    'v2.' + 'A'.repeat(86),
    `v1.${'A'.repeat(85)}`,
    `v1.${'A'.repeat(86)}.x`,
    'v1.' + '!'.repeat(86),
  ])('a malformed signature %j is refused, never thrown', (sig) => {
    expect(verifyReplySignature(sig, claims, key)).toBe(false);
  });

  test('an ephemeral key (a worker without an NKEY) signs and verifies the same way', () => {
    const mine = ReplySigner.ephemeral();
    expect(mine.ephemeral).toBe(true);
    expect(mine.publicKey).toMatch(/^U[A-Z2-7]{55}$/);
    expect(mine.publicKey).not.toBe(ReplySigner.ephemeral().publicKey);
    expect(verifyReplySignature(mine.sign(claims), claims, nkeyPublicKey(mine.publicKey))).toBe(
      true,
    );
  });

  test("the grant's nonce is its signature (v1) or its digest (v2); a malformed grant has none", () => {
    expect(grantNonce(grant)).toBe(grant.split('.')[3]);
    expect(grantNonce('v1.garbage')).toBeUndefined();
    // a v2 grant's is the digest of the whole grant (ADR 0108)
    const v2 = `v2.${grant.slice(3)}`;
    expect(grantNonce(v2)).toBe(createHash('sha256').update(v2).digest('base64url'));
    expect(grantNonce('v2.garbage')).toBeUndefined();
    expect(grantNonce('')).toBeUndefined();
  });
});
