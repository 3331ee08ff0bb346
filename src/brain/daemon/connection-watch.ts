import type { NatsConnection } from '@nats-io/nats-core';

/** Follows a NATS connection's status events: connected or not, for `GET /readyz`. */
export class ConnectionWatch {
  #connected = true;
  readonly #nc: NatsConnection;

  constructor(nc: NatsConnection) {
    this.#nc = nc;
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') this.#connected = false;
        else if (s.type === 'reconnect') this.#connected = true;
      }
    })().catch(() => undefined);
  }

  status(): { ok: boolean; detail?: string } {
    if (this.#nc.isClosed()) return { ok: false, detail: 'connection closed' };
    if (!this.#connected) return { ok: false, detail: 'disconnected; reconnecting' };
    return { ok: true };
  }
}
