// The launcher's own file, not the bus index: `caesar up` runs nats-server and holds no NATS
// client (ADR 0048, addendum 2); the index would bring the client's chunk into its process.
import type { NatsExit, NatsServer } from '../../bus/launcher.js';
import { nextRestart, type BackoffOptions } from './backoff.js';

export interface NatsKeeperEvents {
  /** The server exited on its own; it starts again after `delayMs`. */
  onExit?: (exit: NatsExit, delayMs: number) => void;
  /** It runs again. */
  onRestarted?: (server: NatsServer) => void;
  /** A restart failed (the port is taken, say); the next try follows after `delayMs`. */
  onRestartFailed?: (err: Error, delayMs: number) => void;
}

interface NatsKeeperOptions extends NatsKeeperEvents, BackoffOptions {
  /**
   * Starts the server again. It must listen on the same port with the same config file:
   * the brain and the workers then reconnect by themselves (their clients retry forever),
   * with the identities they already hold.
   */
  restart: () => Promise<NatsServer>;
}

/**
 * Keeps `caesar up`'s nats-server running: restarts it when it dies, with the same backoff
 * as the supervised children ({@link nextRestart}), until `stop()`. The nats-server is not a
 * supervised child because it speaks no IPC: it is ready when it listens, which the
 * launcher waits for.
 */
export class NatsKeeper {
  readonly #o: NatsKeeperOptions;
  #server: NatsServer;
  #startedAt = Date.now();
  #failures = 0;
  #stopping = false;
  #timer: NodeJS.Timeout | undefined;
  #starting: Promise<void> | undefined;

  constructor(first: NatsServer, options: NatsKeeperOptions) {
    this.#o = options;
    this.#server = first;
    this.#watch(first);
  }

  /** The server running now (or the last one, while a restart is pending). */
  get server(): NatsServer {
    return this.#server;
  }

  /** Stops restarting, waits for a restart under way, and stops the server. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#starting;
    await this.#server.stop();
  }

  #watch(server: NatsServer): void {
    void server.exited.then((exit) => {
      if (this.#stopping || server !== this.#server) return;
      const delayMs = this.#backoff(Date.now() - this.#startedAt);
      this.#o.onExit?.(exit, delayMs);
      this.#schedule(delayMs);
    });
  }

  #backoff(ranMs: number): number {
    const next = nextRestart(this.#failures, ranMs, this.#o);
    this.#failures = next.failures;
    return next.delayMs;
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#starting = this.#restart();
    }, delayMs);
  }

  async #restart(): Promise<void> {
    let server: NatsServer;
    try {
      server = await this.#o.restart();
    } catch (err) {
      if (this.#stopping) return;
      const delayMs = this.#backoff(0);
      this.#o.onRestartFailed?.(err instanceof Error ? err : new Error(String(err)), delayMs);
      this.#schedule(delayMs);
      return;
    }
    if (this.#stopping) return server.stop();
    this.#server = server;
    this.#startedAt = Date.now();
    this.#watch(server);
    this.#o.onRestarted?.(server);
  }
}
