import { createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { Prefix } from '@nats-io/nkeys';
// The codec is the nkeys library's own base32 + CRC-16 reader and writer; its package root
// does not export it. test/unit/protocol/nkey-ed25519.test.ts holds every key it makes and
// every signature below to the library's own.
import { Codec } from '@nats-io/nkeys/lib/codec.js';
import { NKEY_USER_PUBLIC_KEY } from './nkey-shape.js';

/**
 * NKEY identities as node:crypto Ed25519 keys: the one home of the seed and public-key codec
 * that the bus login, dispatch grants (ADR 0052) and signed replies (ADR 0060) use. Nothing
 * here runs the nkeys library's pure-JS Ed25519 (tweetnacl): node:crypto derives a public
 * key or signs in tens of microseconds, tweetnacl in 30-150 ms, and a worker started with
 * `--no-opt` (as `caesar up` starts them) used to spend about 300 ms of its start-up there
 * (ADR 0103).
 */

/** The Ed25519 private key of an NKEY seed (`S…`), with its public key (`U…`, `N…`, …). */
export interface NkeyPrivateKey {
  readonly publicKey: string;
  readonly key: KeyObject;
}

/** PKCS#8 framing of a raw 32-byte Ed25519 private key (RFC 8410). */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Decodes an NKEY seed of any role (user, account, operator, server, cluster).
 * @throws {Error} when `seed` is not an NKEY seed (shape, role or checksum)
 */
export function nkeySeedKey(seed: Uint8Array): NkeyPrivateKey {
  const decoded = Codec.decodeSeed(seed);
  const der = Buffer.concat([PKCS8_ED25519, decoded.buf]);
  try {
    const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    return { publicKey: encodePublic(decoded.prefix, rawPublicKeyOf(key)), key };
  } finally {
    der.fill(0);
    decoded.buf.fill(0);
  }
}

/**
 * Decodes an NKEY user seed.
 * @throws {Error} when `seed` is not an NKEY user seed
 */
export function nkeyPrivateKey(seed: Uint8Array): NkeyPrivateKey {
  const decoded = nkeySeedKey(seed);
  if (!decoded.publicKey.startsWith('U')) {
    throw new Error('the NKEY seed is not a user seed (SU…)');
  }
  return decoded;
}

/**
 * A new NKEY user: 32 bytes from the CSPRNG are its Ed25519 private key, as the nkeys library
 * makes one. Not `generateKeyPairSync`: on Node 20 a garbage collection during the new key's
 * export can run the finished key job's destructor, which waits on a lock the export holds,
 * and the process hangs for ever (a `caesar legion identity new` did, in CI).
 */
export function newNkeyUser(): NkeyPrivateKey & { readonly seed: Uint8Array } {
  const raw = randomBytes(32);
  try {
    const seed = Codec.encodeSeed(Prefix.User, raw);
    return { seed, ...nkeySeedKey(seed) };
  } finally {
    raw.fill(0);
  }
}

/**
 * Signs `message` with an NKEY's key as the nkeys library would (Ed25519 is deterministic:
 * the same bytes), in standard base64 as nats.js sends a login nonce's signature.
 */
export function nkeySign(key: KeyObject, message: Uint8Array): string {
  return sign(null, message, key).toString('base64');
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

/** A public key's text: its role's prefix, the key, a CRC-16, in base32. */
function encodePublic(prefix: Prefix, raw: Uint8Array): string {
  return new TextDecoder().decode(Codec.encode(prefix, raw));
}

/** The 32 raw bytes of an Ed25519 key's public half. */
function rawPublicKeyOf(key: KeyObject): Uint8Array {
  const x = key.export({ format: 'jwk' }).x;
  if (x === undefined) throw new Error('not an Ed25519 key');
  return Buffer.from(x, 'base64url');
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
