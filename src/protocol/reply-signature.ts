import { sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../text/index.js';
import { sha256Hex } from './canonical.js';
import type { ErrorBody } from './envelope.js';
import { newNkeyUser, nkeyPrivateKey } from './nkey-ed25519.js';

/**
 * Signed replies (ADR 0060): a worker signs each answer to a call that carries a grant with
 * the Ed25519 key of its NKEY identity, and the brain takes an answer only when the key of
 * the instance it names signed it for exactly this call. A client that may publish into the
 * brain's reply inbox (a leaf site, the operator identity) can then no longer answer a call
 * in the worker's place.
 *
 * Wire form, in the reply envelope's `signature` field: `v1.<signature base64url>`, over
 * `JSON.stringify(["caesar-reply/v1", decision_id, grant nonce, worker id, sha256(canonical
 * JSON of the outcome)])`, the outcome being `{success: true, result}` or `{success: false,
 * error}`. The grant's nonce is its signature (`grantNonce`), unique per grant.
 */

const VERSION = 'v1';
const DOMAIN = 'caesar-reply/v1';
const SIGNATURE = /^v1\.[A-Za-z0-9_-]{86}$/;

/** What the signature covers of a reply: its verdict and payload, as the envelope carries them. */
export type SignedOutcome =
  { success: true; result: unknown } | { success: false; error: ErrorBody };

/** What one signed reply binds. */
export interface ReplyClaims {
  /** The call's decision id (the envelope's `decision_id`). */
  decisionId: string;
  /** The nonce of the call's grant (`grantNonce`). */
  nonce: string;
  /** The answering instance (the reply's `worker.id`). */
  instanceId: string;
  outcome: SignedOutcome;
}

function message(c: ReplyClaims): Buffer {
  const outcomeSha = sha256Hex(canonicalJson(c.outcome));
  return Buffer.from(JSON.stringify([DOMAIN, c.decisionId, c.nonce, c.instanceId, outcomeSha]));
}

/** A worker's side: signs its replies with the key of its NKEY identity. */
export class ReplySigner {
  /** The identity's public key (`U…`): what discovery declares as the instance's reply key. */
  readonly publicKey: string;
  /** Whether the key was made for this process rather than read from an NKEY seed. */
  readonly ephemeral: boolean;
  readonly #key: KeyObject;

  /** @throws {Error} when `seed` is not an NKEY user seed (`SU…`). */
  constructor(seed: Uint8Array, ephemeral = false) {
    const { publicKey, key } = nkeyPrivateKey(seed);
    this.publicKey = publicKey;
    this.#key = key;
    this.ephemeral = ephemeral;
  }

  /**
   * A key made for this process, for a worker that connects without an NKEY (a token, a
   * creds file, no auth): its instances declare it at discovery like any other.
   */
  static ephemeral(): ReplySigner {
    const { seed } = newNkeyUser();
    try {
      return new ReplySigner(seed, true);
    } finally {
      seed.fill(0);
    }
  }

  sign(claims: ReplyClaims): string {
    return `${VERSION}.${sign(null, message(claims), this.#key).toString('base64url')}`;
  }
}

/**
 * Whether `signature` is `key`'s signature over exactly these claims. A signature that is
 * not of the v1 form is false, never a throw.
 */
export function verifyReplySignature(
  signature: string,
  claims: ReplyClaims,
  key: KeyObject,
): boolean {
  if (!SIGNATURE.test(signature)) return false;
  const sig = Buffer.from(signature.slice(VERSION.length + 1), 'base64url');
  return verify(null, message(claims), key, sig);
}
