import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';

/**
 * Replies bound by a MAC (ADR 0105, the reply half of ADR 0081's proposal). An Ed25519
 * verification costs the brain 80-180 us of CPU per call; an HMAC-SHA256 over the same bytes
 * costs 10-13 us. The key of one brain and one worker process is agreed with X25519, once:
 *
 * - the worker makes an X25519 key at start and declares it at discovery beside its reply key,
 *   signed by that key (`caesar.reply_dh`: `<X25519 public key>.<Ed25519 signature>`, the
 *   signature over `JSON.stringify(["caesar-reply-dh/v1", reply key, X25519 public key])`), so
 *   the brain believes it exactly as far as it believes the reply key (pins included);
 * - the brain makes one at start and puts its public half in every dispatch (`reply_dh`);
 * - both take HKDF-SHA256 of the X25519 secret, bound to both public keys, as the MAC key;
 * - the worker answers with `v2.<HMAC-SHA256, base64url>` over the bytes a v1 signature signs.
 *
 * The brain's key needs no signature: a worker that MACs with a key someone else put in a
 * dispatch makes a MAC that only that someone can check; the brain checks with the secret of
 * its own key and the instance's declared one, which nobody else can compute.
 */

/** The declaration's signed text starts with this; so no v1 reply signature passes for it. */
const DH_DOMAIN = 'caesar-reply-dh/v1';
/**
 * HKDF's info starts with this: what the key is for (replies, or grants, ADR 0108), version 2.
 * One X25519 secret thus gives a key per direction, and neither MAC passes for the other.
 */
const KEY_INFO = { reply: 'caesar-reply/v2', grant: 'caesar-grant/v2' } as const;
/** What a pair's MAC key binds: a worker's replies, or the brain's grants (ADR 0108). */
export type MacPurpose = keyof typeof KEY_INFO;
const MAC_VERSION = 'v2';
const MAC = /^v2\.[A-Za-z0-9_-]{43}$/;
/** An X25519 public key, base64url (32 bytes). */
export const REPLY_DH_KEY = /^[A-Za-z0-9_-]{43}$/;
/** `caesar.reply_dh`: the X25519 public key and the reply key's Ed25519 signature over it. */
export const REPLY_DH_DECLARATION = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{86}$/;

/** PKCS#8 framing of a raw 32-byte X25519 private key (RFC 8410). */
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** One side's X25519 key, made for this process. */
export class ReplyDhKey {
  /** The public half, base64url: what the other side derives the MAC key with. */
  readonly publicKey: string;
  readonly #key: KeyObject;

  private constructor(key: KeyObject) {
    this.#key = key;
    const x = createPublicKey(key).export({ format: 'jwk' }).x;
    if (x === undefined) throw new Error('not an X25519 key');
    this.publicKey = x;
  }

  /**
   * A new key from 32 CSPRNG bytes. Not `generateKeyPairSync`, which can hang on Node 20
   * (a garbage collection during the export; see `newNkeyUser`).
   */
  static create(): ReplyDhKey {
    const der = Buffer.concat([PKCS8_X25519, randomBytes(32)]);
    try {
      return new ReplyDhKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
    } finally {
      der.fill(0);
    }
  }

  /**
   * The MAC key this side shares with the holder of `peer` (base64url X25519 public key) for
   * `purpose`; `side` says which of the two this side is, so both bind the keys in the same
   * order. null when `peer` is not a usable public key (its shape, or a low-order point that
   * would give a secret everyone knows).
   */
  macKey(peer: string, side: 'brain' | 'worker', purpose: MacPurpose = 'reply'): Buffer | null {
    if (!REPLY_DH_KEY.test(peer)) return null;
    let secret: Buffer;
    try {
      const publicKey = createPublicKey({
        key: { kty: 'OKP', crv: 'X25519', x: peer },
        format: 'jwk',
      });
      secret = diffieHellman({ privateKey: this.#key, publicKey });
    } catch {
      return null;
    }
    try {
      if (secret.every((b) => b === 0)) return null;
      const [brain, worker] = side === 'brain' ? [this.publicKey, peer] : [peer, this.publicKey];
      const info = Buffer.from(JSON.stringify([KEY_INFO[purpose], brain, worker]));
      return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 32));
    } finally {
      secret.fill(0);
    }
  }
}

/** The text `caesar.reply_dh` signs: which reply key vouches for which X25519 key. */
function declarationMessage(replyKey: string, dhPublicKey: string): Buffer {
  return Buffer.from(JSON.stringify([DH_DOMAIN, replyKey, dhPublicKey]));
}

/** A worker's `caesar.reply_dh` value: `dh`'s public key, signed with its reply key. */
export function declareReplyDh(dh: ReplyDhKey, replyKey: string, signer: KeyObject): string {
  const signature = sign(null, declarationMessage(replyKey, dh.publicKey), signer);
  return `${dh.publicKey}.${signature.toString('base64url')}`;
}

/**
 * The X25519 public key of a `caesar.reply_dh` declaration when `replyKey` (the instance's
 * reply key, `verifier` its node:crypto key) signed it; null otherwise.
 */
export function readReplyDh(
  declaration: string,
  replyKey: string,
  verifier: KeyObject,
): string | null {
  if (!REPLY_DH_DECLARATION.test(declaration)) return null;
  const [dhPublicKey, signature] = declaration.split('.') as [string, string];
  const ok = verify(
    null,
    declarationMessage(replyKey, dhPublicKey),
    verifier,
    Buffer.from(signature, 'base64url'),
  );
  return ok ? dhPublicKey : null;
}

/** The `v2` binding of a reply: an HMAC-SHA256 with the pair's key over `message`. */
export function replyMac(key: Buffer, message: Buffer): string {
  return `${MAC_VERSION}.${createHmac('sha256', key).update(message).digest('base64url')}`;
}

/** Whether `signature` is a reply's `v2` binding at all (its shape). */
export function isReplyMac(signature: string): boolean {
  return MAC.test(signature);
}

/** Whether `signature` is the `v2` binding of `message` under `key`; compared in constant time. */
export function verifyReplyMac(signature: string, message: Buffer, key: Buffer): boolean {
  if (!MAC.test(signature)) return false;
  const expected = createHmac('sha256', key).update(message).digest();
  return timingSafeEqual(
    expected,
    Buffer.from(signature.slice(MAC_VERSION.length + 1), 'base64url'),
  );
}
