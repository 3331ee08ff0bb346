import {
  createInbox,
  PermissionViolationError,
  type MsgHdrs,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/nats-core';
import { pooledRandomBytes } from './random-pool.js';

/** How one request ended, when it ended the way requests are expected to. */
export type MuxOutcome =
  /** `recoveredFrom`: the instance whose answer to a result query this is (ADR 0099). */
  | { readonly kind: 'reply'; readonly msg: Msg; readonly recoveredFrom?: string }
  /** The server answered for nobody: no subscriber on the subject (NATS no-responders). */
  | { readonly kind: 'no_responders' }
  | { readonly kind: 'timeout' }
  /** The bus lost the call before any instance received it; send it again (ADR 0099). */
  | { readonly kind: 'redispatch'; readonly asked: readonly string[] }
  /** The bus lost the call or its reply, and no instance could say what became of it. */
  | { readonly kind: 'unknown'; readonly reason: string; readonly asked: readonly string[] };

/** A request still waiting for its answer. */
export interface PendingRequest {
  /** Ends the request with `outcome`; false when it had already ended. */
  settle(outcome: MuxOutcome): boolean;
  /** Whether it has ended. */
  readonly ended: boolean;
}

/**
 * Decides which message that arrives on a request's reply subject is its answer (ADR 0060).
 * `screen` returns true to take `msg` as the answer, false to keep waiting, until the
 * request's timeout or until the screen settles it itself (after an asynchronous check). It
 * sees no-responders statuses too (`isNoResponders`): a client that saw the request could
 * publish one.
 */
export interface ReplyScreen {
  screen(msg: Msg, request: PendingRequest): boolean;
}

/** Random bytes in a reply token: 128, so that nobody can write to a reply subject unseen. */
const TOKEN_BYTES = 16;

/** A reply token: 128 bits from the CSPRNG, base64url (22 characters, valid in a subject). */
export function replyToken(): string {
  return pooledRandomBytes(TOKEN_BYTES).toString('base64url');
}

/** Whether `msg` is the server's no-responders status (503, no payload). */
export function isNoResponders(msg: Msg): boolean {
  return msg.data.length === 0 && msg.headers?.code === 503;
}

class Pending implements PendingRequest {
  timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly pending: Map<string, Pending>,
    private readonly token: string,
    readonly subject: string,
    private readonly resolve: (outcome: MuxOutcome) => void,
    readonly reject: (err: Error) => void,
    readonly screen: ReplyScreen | undefined,
  ) {}

  get ended(): boolean {
    return !this.pending.has(this.token);
  }

  settle(outcome: MuxOutcome): boolean {
    if (!this.pending.delete(this.token)) return false;
    clearTimeout(this.timer);
    this.resolve(outcome);
    return true;
  }
}

const NO_RESPONDERS: MuxOutcome = Object.freeze({ kind: 'no_responders' });
const TIMED_OUT: MuxOutcome = Object.freeze({ kind: 'timeout' });

/**
 * Request/reply over one wildcard inbox subscription, for the dispatcher's hot path. It does
 * what nats.js `request()` does with its own mux (one `<inbox>.*` subscription, a token per
 * request, the server's 503 status for no responders, a timer per request) without what
 * makes `request()` cost ~20 us of CPU per call: two `Error`s built per request for async
 * stack traces, and a deferred plus a timer object from its utilities (docs/benchmarks.md,
 * ADR 0037). Expected endings resolve as a {@link MuxOutcome}; only faults of the
 * connection reject (closed, draining, a permissions violation), as `request()` would.
 *
 * Each request's token is 128 random bits (ADR 0060): a client allowed to publish into the
 * inbox cannot write to a reply subject it has not seen. nats.js `createInbox` (nuid) and
 * `request()`'s tokens (Math.random) are unique, not unguessable.
 */
export class ReplyMux {
  readonly #nc: NatsConnection;
  readonly #prefix: string | undefined;
  readonly #pending = new Map<string, Pending>();
  #base = '';
  #sub: Subscription | undefined;
  #watching = false;

  /**
   * `inboxPrefix` (`_INBOX.<identity>`), for least-privilege permissions.
   * @default the one the connection was opened with, else `_INBOX`
   */
  constructor(nc: NatsConnection, inboxPrefix?: string) {
    this.#nc = nc;
    this.#prefix = inboxPrefix ?? connectionInboxPrefix(nc);
  }

  /** Requests in flight. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * With `screen`, only a message it takes is the answer; without, the first message is.
   * `onPending` gets the request while it waits, to end it from outside (recovery, ADR 0099).
   */
  request(
    subject: string,
    payload: Uint8Array,
    timeoutMs: number,
    headers?: MsgHdrs,
    screen?: ReplyScreen,
    onPending?: (request: PendingRequest) => void,
  ): Promise<MuxOutcome> {
    return new Promise((resolve, reject) => {
      let base: string;
      try {
        base = this.#ensureSubscribed();
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const token = replyToken();
      const p = new Pending(this.#pending, token, subject, resolve, reject, screen);
      p.timer = setTimeout(() => p.settle(TIMED_OUT), timeoutMs);
      this.#pending.set(token, p);
      onPending?.(p);
      try {
        this.#nc.publish(subject, payload, {
          reply: base + token,
          ...(headers ? { headers } : {}),
        });
      } catch (err) {
        clearTimeout(p.timer);
        this.#pending.delete(token);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  #ensureSubscribed(): string {
    if (this.#sub && !this.#sub.isClosed()) return this.#base;
    this.#base = `${createInbox(this.#prefix)}.`;
    const base = this.#base;
    this.#sub = this.#nc.subscribe(`${base}*`, {
      callback: (err, msg) => {
        if (err) {
          // the server refused or closed the inbox subscription: nothing pending can arrive
          this.#sub = undefined;
          this.#failAll(err);
          return;
        }
        const p = this.#pending.get(msg.subject.slice(base.length));
        if (!p) return; // late: the request already ended
        if (p.screen === undefined) {
          p.settle(isNoResponders(msg) ? NO_RESPONDERS : { kind: 'reply', msg });
        } else if (p.screen.screen(msg, p)) {
          p.settle({ kind: 'reply', msg });
        }
      },
    });
    this.#watch();
    return base;
  }

  /** Publish permission errors and the connection's end reach the requests they concern. */
  #watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    void this.#nc.closed().then(() => this.#failAll(new Error('the NATS connection closed')));
    void (async () => {
      for await (const s of this.#nc.status()) {
        if (s.type !== 'error' || !(s.error instanceof PermissionViolationError)) continue;
        if (s.error.operation !== 'publish') continue;
        // like request(): the oldest request to the refused subject gets the error
        for (const [token, p] of this.#pending) {
          if (p.subject !== s.error.subject) continue;
          this.#pending.delete(token);
          clearTimeout(p.timer);
          p.reject(s.error);
          break;
        }
      }
    })().catch(() => undefined);
  }

  #failAll(err: Error): void {
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.#pending.clear();
  }
}

/** The inbox prefix the connection was opened with (nats.js keeps its options on it). */
function connectionInboxPrefix(nc: NatsConnection): string | undefined {
  const prefix = (nc as { options?: { inboxPrefix?: unknown } }).options?.inboxPrefix;
  return typeof prefix === 'string' && prefix !== '' ? prefix : undefined;
}
