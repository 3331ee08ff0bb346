import { sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../text/index.js';
import { NKEY_USER_PUBLIC_KEY } from './nkey-shape.js';
import { sha256Hex } from './canonical.js';
import { nkeyPrivateKey, nkeyPublicKey } from './nkey-ed25519.js';

/**
 * Signed dispatch grants (ADR 0052): the brain signs every dispatch it decided with the
 * Ed25519 key of its NKEY identity, and a worker runs only calls whose grant a trusted brain
 * signed for exactly that tool, input, decision id, deadline and policy. A client that may
 * publish on a dispatch subject (a misconfigured server, a leaked operator key) can then no
 * longer make a worker act without a policy decision and an audit row.
 *
 * Wire form, in the envelope's `grant` field: `v1.<brain public key>.<policy sha256>.<signature>`,
 * the signature base64url over `JSON.stringify(["caesar-grant/v1", tool, sha256(canonical
 * input), decision_id, deadline, policy sha256, brain public key])`. Signing and verifying go
 * through node:crypto (about 30 and 80 us here); the nkeys library's pure-JS signer takes
 * milliseconds.
 */

const VERSION = 'v1';
const DOMAIN = 'caesar-grant/v1';
const SHA256_HEX = /^[0-9a-f]{64}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

/** What a grant binds: the fields of one dispatch, and the policy that allowed it. */
interface GrantClaims {
  tool: string;
  input: unknown;
  decisionId: string;
  /** The envelope's deadline, epoch ms (an integer). */
  deadline: number;
  /** sha256 of the policy that allowed the call. */
  policySha256: string;
}

function message(c: GrantClaims, inputSha256: string, kid: string): Buffer {
  const fields = [DOMAIN, c.tool, inputSha256, c.decisionId, c.deadline, c.policySha256, kid];
  return Buffer.from(JSON.stringify(fields));
}

/** sha256 of the input's canonical JSON: the same digest for the same value on every host. */
function inputDigest(input: unknown): string {
  return sha256Hex(canonicalJson(input));
}

/** The brain's side: signs grants with the key of its NKEY identity. */
export class GrantSigner {
  /** The identity's public key (`U…`): what workers list in `worker.trusted_brains`. */
  readonly publicKey: string;
  readonly #key: KeyObject;

  /** @throws {Error} when `seed` is not an NKEY user seed (`SU…`). */
  constructor(seed: Uint8Array) {
    const { publicKey, key } = nkeyPrivateKey(seed);
    this.#key = key;
    this.publicKey = publicKey;
  }

  sign(claims: GrantClaims): string {
    const inputSha = inputDigest(claims.input);
    const sig = sign(null, message(claims, inputSha, this.publicKey), this.#key);
    return `${VERSION}.${this.publicKey}.${claims.policySha256}.${sig.toString('base64url')}`;
  }
}

/** Why a worker refused a grant; the message names what was wrong, never the grant itself. */
type GrantVerdict =
  { ok: true; brain: string; policySha256: string } | { ok: false; reason: string };

interface GrantVerifierOptions {
  /** Public keys (`U…`) of the brains whose grants count; two at once during a key rotation. */
  trusted: readonly string[];
  /**
   * Most decision ids remembered until their deadline, against replays. When it is full of
   * live ids, further calls are refused (fail closed) until some expire. @default 65536
   */
  maxRemembered?: number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * The worker's side: checks each call's grant against the trusted brains' keys, and refuses
 * a decision id it has already accepted while that id's deadline has not passed.
 */
export class GrantVerifier {
  readonly #keys = new Map<string, KeyObject>();
  /** Accepted decision ids and their deadlines, in acceptance order. */
  readonly #seen = new Map<string, number>();
  readonly #max: number;
  readonly #now: () => number;

  /** @throws {Error} naming an entry of `trusted` that is not an NKEY user public key. */
  constructor(options: GrantVerifierOptions) {
    for (const kid of options.trusted) {
      this.#keys.set(kid, nkeyPublicKey(kid));
    }
    this.#max = options.maxRemembered ?? 65_536;
    this.#now = options.now ?? Date.now;
  }

  /** The trusted brains' public keys. */
  get trusted(): string[] {
    return [...this.#keys.keys()];
  }

  /** Decision ids remembered now (for tests and stats). */
  get remembered(): number {
    return this.#seen.size;
  }

  /**
   * Checks `grant` for the call the envelope describes; on success remembers the decision id
   * until the deadline, so the same grant is refused a second time.
   */
  check(grant: string | undefined, claims: Omit<GrantClaims, 'policySha256'>): GrantVerdict {
    if (grant === undefined) return refused('the call carries no grant');
    const parts = grant.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) {
      return refused(`the grant is not a ${VERSION} grant`);
    }
    const [, kid, policySha, sig] = parts as [string, string, string, string];
    const key = this.#keys.get(kid);
    if (key === undefined) {
      return refused(
        NKEY_USER_PUBLIC_KEY.test(kid)
          ? `the grant is signed by ${kid}, which is not in worker.trusted_brains`
          : 'the grant names no brain key',
      );
    }
    if (!SHA256_HEX.test(policySha) || !SIGNATURE.test(sig)) {
      return refused('the grant is malformed');
    }
    const data = message({ ...claims, policySha256: policySha }, inputDigest(claims.input), kid);
    if (!verify(null, data, key, Buffer.from(sig, 'base64url'))) {
      return refused(
        'the grant does not match this call (forged, or signed for another tool, input, ' +
          'decision or deadline)',
      );
    }
    const now = this.#now();
    if (claims.deadline <= now) {
      return refused(`the grant expired ${now - claims.deadline} ms ago`);
    }
    if (this.#seen.has(claims.decisionId)) {
      return refused(`decision ${claims.decisionId} was already run: a replayed grant`);
    }
    if (!this.#remember(claims.decisionId, claims.deadline, now)) {
      return refused(
        `${this.#max} grants are live at once, the most this worker remembers against replays`,
      );
    }
    return { ok: true, brain: kid, policySha256: policySha };
  }

  #remember(decisionId: string, deadline: number, now: number): boolean {
    // Deadlines arrive roughly in order: dropping expired ids from the front keeps the set
    // small at no cost; only a full set pays for a sweep.
    for (const [id, until] of this.#seen) {
      if (until > now) break;
      this.#seen.delete(id);
    }
    if (this.#seen.size >= this.#max) {
      for (const [id, until] of this.#seen) if (until <= now) this.#seen.delete(id);
      if (this.#seen.size >= this.#max) return false;
    }
    this.#seen.set(decisionId, deadline);
    return true;
  }
}

function refused(reason: string): GrantVerdict {
  return { ok: false, reason };
}

/**
 * The grant's nonce, which a signed reply binds (ADR 0060): its signature. Ed25519 is
 * deterministic and the signed text holds the call's own decision id, so the signature is
 * unique per grant, and it stands for everything the grant binds (tool, input, decision,
 * deadline, policy, brain). Undefined for a grant that is not of the v1 form.
 */
export function grantNonce(grant: string): string | undefined {
  const nonce = grant.slice(grant.lastIndexOf('.') + 1);
  return grant.startsWith(`${VERSION}.`) && SIGNATURE.test(nonce) ? nonce : undefined;
}
