import type { NatsConnection } from '@nats-io/nats-core';

/** Whether a NATS connection can carry a message now, and why not. */
export interface BusStatus {
  readonly ok: boolean;
  /** Why not, in words: `disconnected from nats://…; reconnecting`. */
  readonly detail?: string;
}

/** Why messages in flight may have been lost (see {@link ConnectionWatch.onLoss}). */
export interface BusLoss {
  readonly kind: 'reconnected' | 'server_lost';
  /** The server reconnected to, or the servers the cluster lost. */
  readonly server: string;
}

/**
 * Follows a NATS connection's status events: up, or disconnected and reconnecting, or
 * closed. While the client is disconnected, nats.js buffers what is published and a request
 * waits for its whole timeout; a caller that must answer at once asks here first. The
 * status lags the socket by at most an event-loop turn.
 */
export class ConnectionWatch {
  #down: { server: string; since: number } | undefined;
  readonly #nc: NatsConnection;
  readonly #lossListeners = new Set<(why: BusLoss) => void>();

  constructor(nc: NatsConnection) {
    this.#nc = nc;
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') this.#down = { server: s.server, since: Date.now() };
        else if (s.type === 'reconnect') {
          this.#down = undefined;
          this.#tell({ kind: 'reconnected', server: s.server });
        } else if (s.type === 'update' && (s.deleted?.length ?? 0) > 0) {
          this.#tell({ kind: 'server_lost', server: s.deleted!.join(', ') });
        }
      }
    })().catch(() => undefined);
  }

  /**
   * Calls `listener` each time messages in flight may have been lost and the connection is
   * up again: this client reconnected (to whichever server), or the cluster dropped a server
   * (the server's INFO no longer lists it), which another client, a worker, may have been
   * on. Returns the function that stops the calls.
   */
  onLoss(listener: (why: BusLoss) => void): () => void {
    this.#lossListeners.add(listener);
    return () => this.#lossListeners.delete(listener);
  }

  #tell(why: BusLoss): void {
    for (const l of this.#lossListeners) l(why);
  }

  status(): BusStatus {
    if (this.#nc.isClosed()) return { ok: false, detail: 'connection closed' };
    const down = this.#down;
    if (down === undefined) return { ok: true };
    const since = new Date(down.since).toISOString();
    return { ok: false, detail: `disconnected from ${down.server} since ${since}; reconnecting` };
  }
}
