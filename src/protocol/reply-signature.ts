import { sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../text/index.js';
import { sha256Hex } from './canonical.js';
import type { ErrorBody } from './envelope.js';
import { newNkeyUser, nkeyPrivateKey } from './nkey-ed25519.js';
import { declareReplyDh, ReplyDhKey, replyMac, verifyReplyMac } from './reply-mac.js';

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
 *
 * `v2.<HMAC-SHA256 base64url>` binds the same bytes with a key the brain and the worker agreed
 * (reply-mac.ts, ADR 0105): a worker answers so when the dispatch carried the brain's
 * `reply_dh`, and the brain checks it for a tenth of a v1 verification's CPU.
 */

const VERSION = 'v1';
const DOMAIN = 'caesar-reply/v1';
const SIGNATURE = /^v1\.[A-Za-z0-9_-]{86}$/;
/** Brains a worker keeps a MAC key for (each brain start makes a new X25519 key). */
const MAX_MAC_KEYS = 16;

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

/** The bytes a reply's binding covers, v1 (signature) and v2 (MAC) alike. */
export function replyMessage(c: ReplyClaims): Buffer {
  const outcomeSha = sha256Hex(canonicalJson(c.outcome));
  return Buffer.from(JSON.stringify([DOMAIN, c.decisionId, c.nonce, c.instanceId, outcomeSha]));
}

/** A worker's side: signs its replies with the key of its NKEY identity. */
export class ReplySigner {
  /** The identity's public key (`U…`): what discovery declares as the instance's reply key. */
  readonly publicKey: string;
  /** Whether the key was made for this process rather than read from an NKEY seed. */
  readonly ephemeral: boolean;
  /** `caesar.reply_dh`: this process's X25519 key, signed with the reply key (ADR 0105). */
  readonly dhDeclaration: string;
  readonly #key: KeyObject;
  readonly #dh = ReplyDhKey.create();
  /** MAC keys by the brain's X25519 key: one brain, or a few across its restarts. */
  readonly #macKeys = new Map<string, Buffer | null>();
  /** Grant keys (ADR 0108) by the brain's X25519 key, the same way. */
  readonly #grantKeys = new Map<string, Buffer | null>();

  /** @throws {Error} when `seed` is not an NKEY user seed (`SU…`). */
  constructor(seed: Uint8Array, ephemeral = false) {
    const { publicKey, key } = nkeyPrivateKey(seed);
    this.publicKey = publicKey;
    this.#key = key;
    this.ephemeral = ephemeral;
    this.dhDeclaration = declareReplyDh(this.#dh, publicKey, key);
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

  /**
   * The reply's binding: a v2 MAC with the key shared with `brainDh` (the dispatch's
   * `reply_dh`), or a v1 signature when the dispatch carried none or an unusable one.
   */
  sign(claims: ReplyClaims, brainDh?: string): string {
    const message = replyMessage(claims);
    const mac = brainDh === undefined ? null : this.#macKey(brainDh);
    if (mac !== null) return replyMac(mac, message);
    return `${VERSION}.${sign(null, message, this.#key).toString('base64url')}`;
  }

  /**
   * The key this process shares with the brain whose X25519 key is `brainDh`, for checking
   * its v2 grants (ADR 0108); null for an unusable key. Whether that brain is trusted is the
   * grant verifier's question (`reply_dh_sig`), not this one's.
   */
  grantKey(brainDh: string): Buffer | null {
    return pairKey(this.#grantKeys, brainDh, () => this.#dh.macKey(brainDh, 'worker', 'grant'));
  }

  #macKey(brainDh: string): Buffer | null {
    return pairKey(this.#macKeys, brainDh, () => this.#dh.macKey(brainDh, 'worker'));
  }
}

/** `brainDh`'s key in `cache`, derived once; the cache holds a few brains' keys at most. */
function pairKey(
  cache: Map<string, Buffer | null>,
  brainDh: string,
  derive: () => Buffer | null,
): Buffer | null {
  let key = cache.get(brainDh);
  if (key !== undefined) return key;
  key = derive();
  if (cache.size >= MAX_MAC_KEYS) cache.clear();
  cache.set(brainDh, key);
  return key;
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
  return verify(null, replyMessage(claims), key, sig);
}

/** Whether `signature` is the v2 MAC of these claims under the pair's `macKey` (ADR 0105). */
export function verifyReplyClaimsMac(
  signature: string,
  claims: ReplyClaims,
  macKey: Buffer,
): boolean {
  return verifyReplyMac(signature, replyMessage(claims), macKey);
}
