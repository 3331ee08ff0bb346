import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { Prefix, fromSeed } from '@nats-io/nkeys';
// The codec is the nkeys library's own base32 + CRC-16 reader; its package root does not
// export it. What it decodes is checked against the library's public key, below.
import { Codec } from '@nats-io/nkeys/lib/codec.js';
import { NKEY_USER_PUBLIC_KEY } from './nkey-shape.js';

/**
 * NKEY user identities as node:crypto Ed25519 keys: the one home of the seed and public-key
 * codec that dispatch grants (ADR 0052) and signed replies (ADR 0060) sign and verify with.
 * node:crypto signs in tens of microseconds; the nkeys library's pure-JS signer takes
 * milliseconds.
 */

/** The Ed25519 private key of an NKEY user seed (`SU…`), with its public key (`U…`). */
export interface NkeyPrivateKey {
  readonly publicKey: string;
  readonly key: KeyObject;
}

/**
 * Decodes an NKEY user seed. node:crypto derives the public key from the private one, and
 * it must equal the nkeys library's: a codec that decoded the seed wrongly fails here, at
 * start, rather than as every signature refused.
 * @throws {Error} when `seed` is not an NKEY user seed, or does not match its public key
 */
export function nkeyPrivateKey(seed: Uint8Array): NkeyPrivateKey {
  const decoded = Codec.decodeSeed(seed);
  if (decoded.prefix !== Prefix.User) throw new Error('the NKEY seed is not a user seed (SU…)');
  const publicKey = fromSeed(seed).getPublicKey();
  const x = b64url(rawPublicKey(publicKey));
  const key = createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: b64url(decoded.buf), x },
    format: 'jwk',
  });
  if (createPublicKey(key).export({ format: 'jwk' }).x !== x) {
    throw new Error('the NKEY seed does not match its public key');
  }
  return { publicKey, key };
}

/**
 * The node:crypto key of an NKEY user public key.
 * @throws {Error} naming `publicKey` when it is not one (shape or checksum)
 */
export function nkeyPublicKey(publicKey: string): KeyObject {
  if (!isNkeyUserKey(publicKey)) {
    throw new Error(`'${publicKey}' is not an NKEY user public key (U followed by 55 characters)`);
  }
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: b64url(rawPublicKey(publicKey)) },
    format: 'jwk',
  });
}

/** Whether `text` is an NKEY user public key (`U` and 55 base32 characters, checksum right). */
export function isNkeyUserKey(text: string): boolean {
  if (!NKEY_USER_PUBLIC_KEY.test(text)) return false;
  try {
    rawPublicKey(text);
    return true;
  } catch {
    return false;
  }
}

function rawPublicKey(publicKey: string): Uint8Array {
  return Codec.decode(Prefix.User, new TextEncoder().encode(publicKey));
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
