import {
  createInbox,
  PermissionViolationError,
  type MsgHdrs,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/nats-core';

/** How one request ended, when it ended the way requests are expected to. */
type MuxOutcome =
  | { readonly kind: 'reply'; readonly msg: Msg }
  /** The server answered for nobody: no subscriber on the subject (NATS no-responders). */
  | { readonly kind: 'no_responders' }
  | { readonly kind: 'timeout' };

interface Pending {
  readonly subject: string;
  readonly resolve: (outcome: MuxOutcome) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
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
 */
export class ReplyMux {
  readonly #nc: NatsConnection;
  readonly #prefix: string | undefined;
  readonly #pending = new Map<string, Pending>();
  #base = '';
  #sub: Subscription | undefined;
  #seq = 0;
  #watching = false;

  /** `inboxPrefix` as the connection was given it (`_INBOX.<identity>`); @default `_INBOX` */
  constructor(nc: NatsConnection, inboxPrefix?: string) {
    this.#nc = nc;
    this.#prefix = inboxPrefix;
  }

  /** Requests in flight. */
  get size(): number {
    return this.#pending.size;
  }

  request(
    subject: string,
    payload: Uint8Array,
    timeoutMs: number,
    headers?: MsgHdrs,
  ): Promise<MuxOutcome> {
    return new Promise((resolve, reject) => {
      let base: string;
      try {
        base = this.#ensureSubscribed();
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const token = (++this.#seq).toString(36);
      const timer = setTimeout(() => {
        if (this.#pending.delete(token)) resolve(TIMED_OUT);
      }, timeoutMs);
      this.#pending.set(token, { subject, resolve, reject, timer });
      try {
        this.#nc.publish(subject, payload, {
          reply: base + token,
          ...(headers ? { headers } : {}),
        });
      } catch (err) {
        clearTimeout(timer);
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
        const token = msg.subject.slice(base.length);
        const p = this.#pending.get(token);
        if (!p) return; // late: the request already timed out
        this.#pending.delete(token);
        clearTimeout(p.timer);
        p.resolve(
          msg.data.length === 0 && msg.headers?.code === 503
            ? NO_RESPONDERS
            : { kind: 'reply', msg },
        );
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
