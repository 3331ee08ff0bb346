import { createUser } from '@nats-io/nkeys';
import { describe, expect, test } from 'vitest';
import { nkeyPrivateKey, nkeyPublicKey } from '../../../src/protocol/nkey-ed25519.js';
import {
  declareReplyDh,
  isReplyMac,
  readReplyDh,
  ReplyDhKey,
  replyMac,
  verifyReplyMac,
} from '../../../src/protocol/reply-mac.js';
import {
  ReplySigner,
  replyMessage,
  verifyReplyClaimsMac,
  verifyReplySignature,
  type ReplyClaims,
} from '../../../src/protocol/reply-signature.js';

// ADR 0105: a reply bound by a MAC with the key a brain and a worker agree with X25519, over
// the bytes a v1 signature signs.

const claims: ReplyClaims = {
  decisionId: '0193a2b4-aaaa-7bbb-8ccc-000000000001',
  nonce: 'n'.repeat(86),
  instanceId: 'Vh3kQ0instance',
  outcome: { success: true, result: { summary: 'Front door stayed unlocked.', changed: false } },
};

/** The brain's view of a worker: its MAC key from the worker's declaration. */
function brainKeyFor(brain: ReplyDhKey, worker: ReplySigner): Buffer {
  const dh = readReplyDh(worker.dhDeclaration, worker.publicKey, nkeyPublicKey(worker.publicKey));
  expect(dh).not.toBeNull();
  const key = brain.macKey(dh!, 'brain');
  expect(key).not.toBeNull();
  return key!;
}

describe('the pair key', () => {
  test('both sides derive the same key; another brain or worker derives another', () => {
    const brain = ReplyDhKey.create();
    const worker = ReplyDhKey.create();
    const k1 = brain.macKey(worker.publicKey, 'brain');
    const k2 = worker.macKey(brain.publicKey, 'worker');
    expect(k1).toHaveLength(32);
    expect(k1!.equals(k2!)).toBe(true);
    const other = ReplyDhKey.create();
    expect(other.macKey(worker.publicKey, 'brain')!.equals(k1!)).toBe(false);
    // the sides are bound: a key derived as if roles were swapped differs
    expect(brain.macKey(worker.publicKey, 'worker')!.equals(k1!)).toBe(false);
  });

  test.each([
    ['not base64url', '!'.repeat(43)],
    ['too short', 'A'.repeat(42)],
    // a low-order point (u = 0): the secret would be all zeros, known to everyone
    ['the zero point', 'A'.repeat(43)],
    // u = 1, another point of small order
    ['a small-order point', Buffer.from([1, ...new Array(31).fill(0)]).toString('base64url')],
  ])('a peer key that is %s gives no key, never a throw', (_why, peer) => {
    expect(ReplyDhKey.create().macKey(peer, 'brain')).toBeNull();
  });
});

describe('caesar.reply_dh', () => {
  const user = createUser();
  const { publicKey, key } = nkeyPrivateKey(user.getSeed());
  const dh = ReplyDhKey.create();

  test('holds the X25519 key its reply key signed', () => {
    const declaration = declareReplyDh(dh, publicKey, key);
    expect(readReplyDh(declaration, publicKey, nkeyPublicKey(publicKey))).toBe(dh.publicKey);
  });

  test('another X25519 key under the same signature, or another reply key, does not hold', () => {
    const declaration = declareReplyDh(dh, publicKey, key);
    const swapped = `${ReplyDhKey.create().publicKey}.${declaration.split('.')[1]}`;
    expect(readReplyDh(swapped, publicKey, nkeyPublicKey(publicKey))).toBeNull();
    const mallory = createUser();
    const theirs = nkeyPrivateKey(mallory.getSeed());
    // Mallory signs the worker's key claim with her own key: the worker's reply key refuses it
    const forged = declareReplyDh(dh, publicKey, theirs.key);
    expect(readReplyDh(forged, publicKey, nkeyPublicKey(publicKey))).toBeNull();
    // and a declaration made for one reply key is not one for another
    expect(readReplyDh(declaration, theirs.publicKey, nkeyPublicKey(theirs.publicKey))).toBeNull();
  });

  test.each(['', 'x', `${'A'.repeat(43)}.`, `${'A'.repeat(43)}.${'A'.repeat(85)}`])(
    'a malformed declaration %j is refused, never thrown',
    (text) => {
      expect(readReplyDh(text, publicKey, nkeyPublicKey(publicKey))).toBeNull();
    },
  );
});

describe('MACed replies', () => {
  test('a worker answers a dispatch that carries the brain key with a v2 MAC the brain checks', () => {
    const brain = ReplyDhKey.create();
    const worker = new ReplySigner(createUser().getSeed());
    const sig = worker.sign(claims, brain.publicKey);
    expect(sig).toMatch(/^v2\.[A-Za-z0-9_-]{43}$/);
    expect(isReplyMac(sig)).toBe(true);
    expect(verifyReplyClaimsMac(sig, claims, brainKeyFor(brain, worker))).toBe(true);
  });

  test.each<[string, Partial<ReplyClaims>]>([
    ['decision id', { decisionId: '0193a2b4-aaaa-7bbb-8ccc-000000000002' }],
    ['grant nonce', { nonce: 'm'.repeat(86) }],
    ['instance id', { instanceId: 'Vh3kQ0other' }],
    ['result', { outcome: { success: true, result: { summary: 'unlocked', changed: true } } }],
  ])('changing the %s breaks the MAC', (_field, change) => {
    const brain = ReplyDhKey.create();
    const worker = new ReplySigner(createUser().getSeed());
    const sig = worker.sign(claims, brain.publicKey);
    expect(verifyReplyClaimsMac(sig, { ...claims, ...change }, brainKeyFor(brain, worker))).toBe(
      false,
    );
  });

  test("a MAC made for someone else's brain key does not pass this brain's check", () => {
    // whoever puts their own key in a dispatch gets a MAC only they can check
    const brain = ReplyDhKey.create();
    const mallory = ReplyDhKey.create();
    const worker = new ReplySigner(createUser().getSeed());
    const forMallory = worker.sign(claims, mallory.publicKey);
    expect(verifyReplyClaimsMac(forMallory, claims, brainKeyFor(brain, worker))).toBe(false);
    // and with the key she shares with the worker, a MAC she makes for a forged outcome
    // fails this brain's check
    const hers = mallory.macKey(
      readReplyDh(worker.dhDeclaration, worker.publicKey, nkeyPublicKey(worker.publicKey))!,
      'brain',
    )!;
    const lie: ReplyClaims = {
      ...claims,
      outcome: { success: true, result: { summary: 'Front door: unlocked -> locked.' } },
    };
    expect(verifyReplyClaimsMac(replyMac(hers, replyMessage(lie)), lie, hers)).toBe(true);
    expect(
      verifyReplyClaimsMac(replyMac(hers, replyMessage(lie)), lie, brainKeyFor(brain, worker)),
    ).toBe(false);
  });

  test('without a usable brain key the worker signs (v1), as before', () => {
    const worker = new ReplySigner(createUser().getSeed());
    const key = nkeyPublicKey(worker.publicKey);
    for (const brainDh of [undefined, 'A'.repeat(43), 'not a key']) {
      const sig = worker.sign(claims, brainDh);
      expect(sig).toMatch(/^v1\./);
      expect(verifyReplySignature(sig, claims, key)).toBe(true);
    }
  });

  test.each(['', 'v2.', `v2.${'A'.repeat(42)}`, `v2.${'A'.repeat(44)}`, `v1.${'A'.repeat(43)}`])(
    'a malformed MAC %j is refused, never thrown',
    (sig) => {
      expect(verifyReplyMac(sig, Buffer.from('m'), Buffer.alloc(32, 1))).toBe(false);
    },
  );

  test('replyMac and verifyReplyMac agree, and a one-bit change fails', () => {
    const key = Buffer.alloc(32, 7);
    const sig = replyMac(key, Buffer.from('message'));
    expect(verifyReplyMac(sig, Buffer.from('message'), key)).toBe(true);
    expect(verifyReplyMac(sig, Buffer.from('messagf'), key)).toBe(false);
  });
});
