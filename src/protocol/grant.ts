import { createHash, createHmac, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../text/index.js';
import { INSTANCE_ID_PATTERN } from './names.js';
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
 *
 * `v2.<brain public key>.<policy sha256>.<instance id>:<mac>,…` (ADR 0108) binds the same
 * fields, and the instance, with an HMAC-SHA256 per instance the queue group may pick, keyed
 * with what the brain and that worker process agreed over X25519 (the keys of ADR 0105, for
 * the other direction). The brain's X25519 key travels as the dispatch's `reply_dh`, signed by
 * its NKEY (`reply_dh_sig`): a worker checks that signature once per brain key, and then each
 * call for one HMAC (about 10 us) where a v1 grant costs it an Ed25519 verification (80-190 us).
 */

const VERSION = 'v1';
const DOMAIN = 'caesar-grant/v1';
const V2 = 'v2';
const DOMAIN_V2 = 'caesar-grant/v2';
/** The text a brain's `reply_dh_sig` signs starts with this. */
const DH_DOMAIN = 'caesar-grant-dh/v1';
const SHA256_HEX = /^[0-9a-f]{64}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;
/**
 * One v2 entry: an instance id (`INSTANCE_ID_PATTERN`: a NUID, or any subject-safe token a
 * worker picks) and its HMAC, base64url. Neither holds `:` or `,`.
 */
const ENTRY = new RegExp(`^(${INSTANCE_ID_PATTERN.source.slice(1, -1)}):([A-Za-z0-9_-]{43})$`);
/** The most instances one v2 grant names; past that the brain signs a v1 grant. */
export const MAX_GRANT_INSTANCES = 8;
/** Brain X25519 keys whose signature a worker remembers (one per brain start). */
const MAX_CHECKED_DH = 16;

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

/** What a v2 grant's MAC for `instanceId` covers: the v1 fields and the instance. */
function messageV2(c: GrantClaims, inputSha256: string, kid: string, instanceId: string): Buffer {
  const fields = [DOMAIN_V2, c.tool, inputSha256, c.decisionId, c.deadline, c.policySha256, kid];
  return Buffer.from(JSON.stringify([...fields, instanceId]));
}

/** The text a brain's signature over its X25519 key (`reply_dh_sig`) covers. */
function dhMessage(kid: string, dhPublicKey: string): Buffer {
  return Buffer.from(JSON.stringify([DH_DOMAIN, kid, dhPublicKey]));
}

/** One instance a v2 grant is for, and the grant key this brain shares with it. */
export interface GrantInstance {
  readonly id: string;
  /** The pair's grant key (`ReplyDhKey.macKey(…, 'grant')`). */
  readonly key: Buffer;
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

  /**
   * A v2 grant (ADR 0108): one HMAC per instance in `to`, each with the grant key this brain
   * shares with it. The dispatch must carry this brain's X25519 key as `reply_dh` and
   * `signDh` of it as `reply_dh_sig`.
   * @throws {Error} for no instance, or more than `MAX_GRANT_INSTANCES`
   */
  mac(claims: GrantClaims, to: readonly GrantInstance[]): string {
    if (to.length === 0 || to.length > MAX_GRANT_INSTANCES) {
      throw new Error(`a v2 grant names 1 to ${MAX_GRANT_INSTANCES} instances, not ${to.length}`);
    }
    const inputSha = inputDigest(claims.input);
    const entries = to.map((i) => {
      const data = messageV2(claims, inputSha, this.publicKey, i.id);
      return `${i.id}:${createHmac('sha256', i.key).update(data).digest('base64url')}`;
    });
    return `${V2}.${this.publicKey}.${claims.policySha256}.${entries.join(',')}`;
  }

  /** This brain's signature over its X25519 public key: the dispatch's `reply_dh_sig`. */
  signDh(dhPublicKey: string): string {
    return sign(null, dhMessage(this.publicKey, dhPublicKey), this.#key).toString('base64url');
  }
}

/**
 * What a worker needs to check a v2 grant addressed to it: its instance id, the brain's
 * X25519 key and signature as the dispatch carried them, and the grant key its process shares
 * with that key (`ReplySigner.grantKey`).
 */
export interface GrantAddressee {
  readonly instanceId: string;
  /** The dispatch's `reply_dh`. */
  readonly brainDh: string | undefined;
  /** The dispatch's `reply_dh_sig`. */
  readonly brainDhSig: string | undefined;
  /** The grant key this process shares with `brainDh`; null for an unusable key. */
  keyFor(brainDh: string): Buffer | null;
}

/** Why a worker refused a grant; the message names what was wrong, never the grant itself. */
type GrantVerdict =
  | { ok: true; brain: string; policySha256: string }
  /**
   * `unaddressed`: a valid-looking v2 grant that names no MAC for this instance (the brain
   * did not list it yet): the brain sends the call again with a v1 grant (ADR 0108).
   */
  | { ok: false; reason: string; unaddressed?: true };

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
  /** Brain X25519 declarations checked: `kid.dh.sig` to whether the brain signed it. */
  readonly #dhChecked = new Map<string, boolean>();

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
  check(
    grant: string | undefined,
    claims: Omit<GrantClaims, 'policySha256'>,
    to?: GrantAddressee,
  ): GrantVerdict {
    if (grant === undefined) return refused('the call carries no grant');
    const parts = grant.split('.');
    if (parts.length !== 4 || (parts[0] !== VERSION && parts[0] !== V2)) {
      return refused(`the grant is not a ${VERSION} or ${V2} grant`);
    }
    const [version, kid, policySha, sig] = parts as [string, string, string, string];
    const key = this.#keys.get(kid);
    if (key === undefined) {
      return refused(
        NKEY_USER_PUBLIC_KEY.test(kid)
          ? `the grant is signed by ${kid}, which is not in worker.trusted_brains`
          : 'the grant names no brain key',
      );
    }
    if (!SHA256_HEX.test(policySha)) return refused('the grant is malformed');
    const full = { ...claims, policySha256: policySha };
    const bound =
      version === VERSION
        ? this.#verifyV1(full, kid, key, sig)
        : this.#verifyV2(full, kid, key, sig, to);
    if (bound !== true) return bound;
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

  #verifyV1(claims: GrantClaims, kid: string, key: KeyObject, sig: string): true | GrantVerdict {
    if (!SIGNATURE.test(sig)) return refused('the grant is malformed');
    const data = message(claims, inputDigest(claims.input), kid);
    if (!verify(null, data, key, Buffer.from(sig, 'base64url'))) {
      return refused(
        'the grant does not match this call (forged, or signed for another tool, input, ' +
          'decision or deadline)',
      );
    }
    return true;
  }

  #verifyV2(
    claims: GrantClaims,
    kid: string,
    key: KeyObject,
    list: string,
    to: GrantAddressee | undefined,
  ): true | GrantVerdict {
    if (to === undefined) return refused('a v2 grant reached a path that takes v1 grants only');
    const entries = list.split(',');
    if (entries.length > MAX_GRANT_INSTANCES) return refused('the grant is malformed');
    let mine: string | undefined;
    for (const entry of entries) {
      const m = ENTRY.exec(entry);
      if (m === null) return refused('the grant is malformed');
      if (m[1] === to.instanceId) mine = m[2];
    }
    const { brainDh, brainDhSig } = to;
    if (brainDh === undefined || brainDhSig === undefined || !SIGNATURE.test(brainDhSig)) {
      return refused("a v2 grant needs the brain's X25519 key and its signature (reply_dh)");
    }
    if (!this.#brainSignedDh(kid, key, brainDh, brainDhSig)) {
      return refused(`the dispatch's X25519 key is not one ${kid} signed`);
    }
    if (mine === undefined) {
      return {
        ok: false,
        unaddressed: true,
        reason: `the grant names no MAC for this instance (${to.instanceId})`,
      };
    }
    const macKey = to.keyFor(brainDh);
    if (macKey === null) return refused("the brain's X25519 key is not a usable key");
    const data = messageV2(claims, inputDigest(claims.input), kid, to.instanceId);
    const expected = createHmac('sha256', macKey).update(data).digest();
    if (!timingSafeEqual(expected, Buffer.from(mine, 'base64url'))) {
      return refused(
        'the grant does not match this call (forged, or MACed for another tool, input, ' +
          'decision, deadline or instance)',
      );
    }
    return true;
  }

  /** Whether `kid` signed `dh` (`reply_dh_sig`); checked once per key and signature. */
  #brainSignedDh(kid: string, key: KeyObject, dh: string, sig: string): boolean {
    const k = `${kid}.${dh}.${sig}`;
    let ok = this.#dhChecked.get(k);
    if (ok !== undefined) return ok;
    ok = verify(null, dhMessage(kid, dh), key, Buffer.from(sig, 'base64url'));
    if (this.#dhChecked.size >= MAX_CHECKED_DH) this.#dhChecked.clear();
    this.#dhChecked.set(k, ok);
    return ok;
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
 * The grant's nonce, which a signed reply binds (ADR 0060): a v1 grant's signature. Ed25519
 * is deterministic and the signed text holds the call's own decision id, so the signature is
 * unique per grant, and it stands for everything the grant binds (tool, input, decision,
 * deadline, policy, brain). A v2 grant's is the SHA-256 of the whole grant (base64url), which
 * holds MACs over the same fields (ADR 0108). Undefined for a grant of neither form.
 */
export function grantNonce(grant: string): string | undefined {
  if (grant.startsWith(`${V2}.`)) {
    return grant.split('.').length === 4
      ? createHash('sha256').update(grant).digest('base64url')
      : undefined;
  }
  const nonce = grant.slice(grant.lastIndexOf('.') + 1);
  return grant.startsWith(`${VERSION}.`) && SIGNATURE.test(nonce) ? nonce : undefined;
}
