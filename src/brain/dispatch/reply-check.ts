import type { KeyObject } from 'node:crypto';
import type { Msg } from '@nats-io/nats-core';
import {
  describeFirstIssue,
  DispatchReplySchema,
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_DEPTH,
  type DispatchReply,
  splitCallable,
} from '../../protocol/index.js';
import { nkeyPublicKey } from '../../protocol/nkey-ed25519.js';
import { isReplyMac, readReplyDh, ReplyDhKey, type MacPurpose } from '../../protocol/reply-mac.js';
import { MAX_GRANT_INSTANCES, type GrantInstance } from '../../protocol/grant.js';
import {
  verifyReplyClaimsMac,
  verifyReplySignature,
  type SignedOutcome,
} from '../../protocol/reply-signature.js';
import { readJsonText } from '../../text/index.js';
import { isNoResponders, type PendingRequest, type ReplyScreen } from './reply-mux.js';

/**
 * The brain's side of signed replies (ADR 0060): a reply is a call's answer only when the key
 * of the instance it names signed it for this call's decision id and grant nonce, and that
 * instance is one the registry confirmed for the tool on its own `$SRV.INFO` subject. A v2
 * reply is MACed instead, with the key this brain agreed with the instance's declared X25519
 * key (ADR 0105): the same binding for a tenth of the CPU.
 * Anything else that arrives on the call's reply subject is refused, counted, and not the
 * answer: the call keeps waiting for the real one.
 */

/** The reply keys an instance's own INFO subject declared. */
export interface DeclaredReplyKeys {
  /** Its reply key (`U…`, ADR 0060). */
  readonly replyKey?: string;
  /** Its `caesar.reply_dh` (ADR 0105). */
  readonly replyDh?: string;
  /** Whether it checks v2 grants (`caesar.grants`, ADR 0108). */
  readonly grantV2?: boolean;
}

/** What the registry tells the dispatcher about a tool's instances. */
export interface ReplyInstances {
  /**
   * The listed instances of `tool`: one array per registry change, never changed in place,
   * so the grant keys worked out for one serve every call until the next change.
   */
  instances(tool: string): readonly (DeclaredReplyKeys & { readonly id: string })[];
  /** Instance `id` of `tool` when listed, with the reply keys its own INFO subject declared. */
  instance(tool: string, id: string): DeclaredReplyKeys | undefined;
  /** Asks an unlisted instance on its own INFO subject; resolves with it once listed. */
  confirmInstance(tool: string, id: string): Promise<DeclaredReplyKeys | undefined>;
  /** Whether a listed instance of `tool` answers its own PING now. */
  anyAnswers(tool: string): Promise<boolean>;
}

/** Why a reply was refused: the label of `caesar_replies_refused_total`. */
export type RefusalKind =
  | 'malformed'
  | 'unsigned'
  | 'unknown_instance'
  | 'no_key'
  | 'untrusted_key'
  | 'bad_signature'
  | 'no_responders';

export interface Refusal {
  readonly kind: RefusalKind;
  /** One line for the log and the call's `bad_reply`; names no secret. */
  readonly reason: string;
  /** The instance the reply named, when it named one. */
  readonly instance?: string;
}

type Verdict = true | Refusal;

/** A reply envelope as parsed, and the JSON it came from (what the signature digests). */
interface ReadReply {
  readonly reply: DispatchReply;
  readonly raw: Readonly<Record<string, unknown>>;
}

const decoder = new TextDecoder();
const MAX_CACHED_KEYS = 1024;

/** Reads a reply envelope within the envelope's bounds; a string says why it is not one. */
export function readReply(data: Uint8Array): ReadReply | string {
  if (data.length > MAX_ENVELOPE_BYTES) return `a ${data.length}-byte reply (over the limit)`;
  const text = decoder.decode(data);
  const read = readJsonText(text, MAX_ENVELOPE_DEPTH);
  if (!read.ok) {
    if (read.why === 'deep') {
      return `a reply nested deeper than ${MAX_ENVELOPE_DEPTH} levels (at offset ${read.offset})`;
    }
    if (read.why === 'syntax') return 'a reply that is not JSON';
    return `a reply with a \`${read.key}\` key (it could reach an object's prototype)`;
  }
  const raw = read.value;
  const parsed = DispatchReplySchema.safeParse(raw);
  if (parsed.success) return { reply: parsed.data, raw: raw as Record<string, unknown> };
  return `a reply that is not a v1 envelope (${describeFirstIssue(parsed.error)})`;
}

export interface ReplyBindingOptions {
  instances: ReplyInstances;
  /**
   * Reply keys per tool that the brain knows from elsewhere (`brain.trusted_workers`; `caesar
   * up` lists the identities it minted): for a tool listed here, an instance's declared key
   * must be one of them. @default none: the key its own INFO subject declared
   */
  trusted?: Readonly<Record<string, readonly string[]>>;
}

/** Checks replies against the keys of the instances they name. One per dispatcher. */
export class ReplyBinding {
  readonly #instances: ReplyInstances;
  readonly #trusted: Readonly<Record<string, readonly string[]>>;
  /** Parsed public keys; null for a declared key that is not a valid one. */
  readonly #keys = new Map<string, KeyObject | null>();
  /** This brain's X25519 key, for v2 replies (ADR 0105). */
  readonly #dh = ReplyDhKey.create();
  /** MAC keys by reply key and `caesar.reply_dh`; null for a declaration that did not verify. */
  readonly #macKeys = new Map<string, Buffer | null>();
  /** Grant keys (ADR 0108) the same way. */
  readonly #grantKeys = new Map<string, Buffer | null>();
  /** The v2 grant's instances for one registry listing; null when it must be v1. */
  readonly #grantTo = new WeakMap<readonly DeclaredReplyKeys[], readonly GrantInstance[] | null>();

  constructor(options: ReplyBindingOptions) {
    this.#instances = options.instances;
    this.#trusted = options.trusted ?? {};
  }

  /** This brain's X25519 public key: every dispatch carries it as `reply_dh`. */
  get dhPublicKey(): string {
    return this.#dh.publicKey;
  }

  /**
   * The instances a v2 grant for `tool` is MACed for (ADR 0108): every listed instance, when
   * each takes v2 grants, declared an X25519 key its reply key signed, and passes the pins;
   * at most `MAX_GRANT_INSTANCES`. undefined otherwise: the grant is signed (v1), which every
   * worker checks. An instance that starts before the registry lists it answers a v2 grant
   * `grant_unaddressed`, and the dispatcher sends that call again signed.
   */
  grantInstances(tool: string): readonly GrantInstance[] | undefined {
    const listed = this.#instances.instances(tool);
    let to = this.#grantTo.get(listed);
    if (to === undefined) {
      to = this.#grantInstances(tool, listed);
      this.#grantTo.set(listed, to);
    }
    return to ?? undefined;
  }

  #grantInstances(
    tool: string,
    listed: readonly (DeclaredReplyKeys & { readonly id: string })[],
  ): readonly GrantInstance[] | null {
    if (listed.length === 0 || listed.length > MAX_GRANT_INSTANCES) return null;
    const pinned = this.#trusted[tool] ?? this.#trusted[splitCallable(tool).tool];
    const to: GrantInstance[] = [];
    for (const i of listed) {
      const { replyKey, replyDh } = i;
      if (!i.grantV2 || replyKey === undefined || replyDh === undefined) return null;
      if (pinned !== undefined && !pinned.includes(replyKey)) return null;
      const verifier = this.#key(replyKey);
      const key = verifier === null ? null : this.#pairKey('grant', replyKey, replyDh, verifier);
      if (key === null) return null;
      to.push({ id: i.id, key });
    }
    return to;
  }

  /** Whether a listed instance of `tool` answers now (a no-responders status in doubt). */
  anyAnswers(tool: string): Promise<boolean> {
    return this.#instances.anyAnswers(tool);
  }

  /** true when `read` is this call's answer; a refusal (or a promise of either) otherwise. */
  check(
    tool: string,
    read: ReadReply,
    decisionId: string,
    nonce: string,
  ): Verdict | Promise<Verdict> {
    const { reply } = read;
    const id = reply.worker?.id;
    if (id === undefined) return refusal('unknown_instance', 'a reply that names no instance');
    if (reply.signature === undefined) {
      return refusal('unsigned', `an unsigned reply naming ${tool}/${id}`, id);
    }
    const listed = this.#instances.instance(tool, id);
    if (listed !== undefined) return this.#verify(tool, id, listed, read, decisionId, nonce);
    return this.#instances
      .confirmInstance(tool, id)
      .then((confirmed) =>
        confirmed === undefined
          ? refusal(
              'unknown_instance',
              `a reply naming ${tool}/${id}, which the registry does not list and whose own ` +
                'INFO subject did not confirm it',
              id,
            )
          : this.#verify(tool, id, confirmed, read, decisionId, nonce),
      );
  }

  #verify(
    tool: string,
    id: string,
    keys: DeclaredReplyKeys,
    read: ReadReply,
    decisionId: string,
    nonce: string,
  ): Verdict {
    const who = `${tool}/${id}`;
    const declared = keys.replyKey;
    if (declared === undefined) {
      return refusal('no_key', `a reply naming ${who}, which declared no reply key`, id);
    }
    // an action is served by its tool's identity, which the pins name (ADR 0092)
    const owner = splitCallable(tool).tool;
    const pinned = this.#trusted[tool] ?? this.#trusted[owner];
    if (pinned !== undefined && !pinned.includes(declared)) {
      return refusal(
        'untrusted_key',
        `a reply naming ${who}, whose reply key ${declared} is not one brain.trusted_workers ` +
          `lists for ${owner}`,
        id,
      );
    }
    const key = this.#key(declared);
    if (key === null)
      return refusal('no_key', `a reply naming ${who}, whose reply key is invalid`, id);
    const { raw, reply } = read;
    const outcome = (
      reply.success ? { success: true, result: raw.result } : { success: false, error: raw.error }
    ) as SignedOutcome;
    const claims = { decisionId, nonce, instanceId: id, outcome };
    const signature = reply.signature!;
    let bound: boolean;
    if (isReplyMac(signature)) {
      const macKey =
        keys.replyDh === undefined ? null : this.#pairKey('reply', declared, keys.replyDh, key);
      if (macKey === null) {
        return refusal(
          'no_key',
          `a MACed reply naming ${who}, which declared no X25519 key its reply key signed`,
          id,
        );
      }
      bound = verifyReplyClaimsMac(signature, claims, macKey);
    } else bound = verifyReplySignature(signature, claims, key);
    return bound
      ? true
      : refusal(
          'bad_signature',
          `a reply naming ${who} whose signature does not match this call (forged, or signed ` +
            'for another call)',
          id,
        );
  }

  /**
   * The key for `purpose` shared with the holder of `declaration`, once its reply key's
   * signature over it holds.
   */
  #pairKey(
    purpose: MacPurpose,
    replyKey: string,
    declaration: string,
    verifier: KeyObject,
  ): Buffer | null {
    const cache = purpose === 'reply' ? this.#macKeys : this.#grantKeys;
    const cacheKey = `${replyKey}.${declaration}`;
    let macKey = cache.get(cacheKey);
    if (macKey !== undefined) return macKey;
    const dh = readReplyDh(declaration, replyKey, verifier);
    macKey = dh === null ? null : this.#dh.macKey(dh, 'brain', purpose);
    if (cache.size >= MAX_CACHED_KEYS) cache.clear();
    cache.set(cacheKey, macKey);
    return macKey;
  }

  #key(publicKey: string): KeyObject | null {
    let key = this.#keys.get(publicKey);
    if (key !== undefined) return key;
    try {
      key = nkeyPublicKey(publicKey);
    } catch {
      key = null;
    }
    if (this.#keys.size >= MAX_CACHED_KEYS) this.#keys.clear();
    this.#keys.set(publicKey, key);
    return key;
  }
}

function refusal(kind: RefusalKind, reason: string, instance?: string): Refusal {
  return instance === undefined ? { kind, reason } : { kind, reason, instance };
}

const NO_RESPONDERS = Object.freeze({ kind: 'no_responders' as const });

/**
 * One call's screen over its reply subject: takes the first reply bound to the call, and
 * remembers what it refused, for the log, the metric and the call's end when nothing bound
 * came. A no-responders status is believed only when no listed instance of the tool answers
 * its own PING: a client that saw the dispatch could publish one, but then the server never
 * would (the call had a subscriber), and a live instance means the call may be running.
 */
export class CallReplyCheck implements ReplyScreen {
  /** The reply taken as the answer. */
  accepted: DispatchReply | undefined;
  /** The first refusal, and how many there were. */
  first: Refusal | undefined;
  refused = 0;
  #askedAlive = false;

  constructor(
    private readonly binding: ReplyBinding,
    private readonly tool: string,
    private readonly decisionId: string,
    private readonly nonce: string,
    private readonly onRefused: (refusal: Refusal, first: boolean) => void,
  ) {}

  screen(msg: Msg, request: PendingRequest): boolean {
    if (isNoResponders(msg)) {
      this.#noResponders(request);
      return false;
    }
    const read = readReply(msg.data);
    if (typeof read === 'string') {
      this.#refuse(refusal('malformed', read));
      return false;
    }
    const verdict = this.binding.check(this.tool, read, this.decisionId, this.nonce);
    if (verdict === true) {
      this.accepted = read.reply;
      return true;
    }
    if (!(verdict instanceof Promise)) {
      this.#refuse(verdict);
      return false;
    }
    verdict.then(
      (v) => {
        if (v !== true) this.#refuse(v);
        else if (request.settle({ kind: 'reply', msg })) this.accepted = read.reply;
      },
      () => this.#refuse(refusal('unknown_instance', 'its instance could not be asked')),
    );
    return false;
  }

  #noResponders(request: PendingRequest): void {
    const { tool } = this;
    if (this.#askedAlive) {
      // the server sends one at most, and only when nobody could see the call
      this.#refuse(refusal('no_responders', `a second no-responders status for ${tool}`));
      return;
    }
    this.#askedAlive = true;
    this.binding.anyAnswers(tool).then(
      (alive) => {
        if (!alive) request.settle(NO_RESPONDERS);
        else {
          this.#refuse(
            refusal(
              'no_responders',
              `a no-responders status, while an instance of ${tool} answers on its own subject`,
            ),
          );
        }
      },
      () => request.settle(NO_RESPONDERS),
    );
  }

  #refuse(r: Refusal): void {
    this.refused += 1;
    const first = this.first === undefined;
    if (first) this.first = r;
    this.onRefused(r, first);
  }
}
