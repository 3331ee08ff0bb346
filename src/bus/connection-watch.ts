import type { NatsConnection } from '@nats-io/nats-core';

/** Whether a NATS connection can carry a message now, and why not. */
export interface BusStatus {
  readonly ok: boolean;
  /** Why not, in words: `disconnected from nats://…; reconnecting`. */
  readonly detail?: string;
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

  constructor(nc: NatsConnection) {
    this.#nc = nc;
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') this.#down = { server: s.server, since: Date.now() };
        else if (s.type === 'reconnect') this.#down = undefined;
      }
    })().catch(() => undefined);
  }

  status(): BusStatus {
    if (this.#nc.isClosed()) return { ok: false, detail: 'connection closed' };
    const down = this.#down;
    if (down === undefined) return { ok: true };
    const since = new Date(down.since).toISOString();
    return { ok: false, detail: `disconnected from ${down.server} since ${since}; reconnecting` };
  }
}
