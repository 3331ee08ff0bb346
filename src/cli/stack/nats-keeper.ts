// The launcher's own file, not the bus index: `caesar up` runs nats-server and holds no NATS
// client (ADR 0048, addendum 2); the index would bring the client's chunk into its process.
import type { NatsExit, NatsServer } from '../../bus/launcher.js';
import { natsAnswers } from '../../bus/nats-probe.js';
import { heartbeatIntervalMs, signalGroup } from '../../process/index.js';
import { nextRestart, secondsText, type BackoffOptions } from '../../clock/index.js';

/** Why the keeper ended a server itself. */
export interface KeeperKill {
  readonly reason: 'unresponsive';
  readonly detail: string;
}

export interface NatsKeeperEvents {
  /**
   * The server exited; it starts again after `delayMs`. `killed` says why when the keeper
   * killed it (it stopped answering), absent when it died on its own.
   */
  onExit?: (exit: NatsExit, delayMs: number, killed: KeeperKill | undefined) => void;
  /** The server stopped answering (ADR 0070): the keeper kills it with SIGKILL. */
  onKill?: (server: NatsServer, detail: string) => void;
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
  /**
   * A server that does not greet a new connection for this long is killed (SIGKILL) and
   * restarted; 0 watches nothing. @default 10000
   */
  answerTimeoutMs?: number;
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
  /** When the running server last greeted a probe. */
  #answeredAt = Date.now();
  #probing = false;
  #killed: KeeperKill | undefined;
  /** The server exited and its restart is pending. */
  #down = false;
  readonly #probe: NodeJS.Timeout | undefined;

  constructor(first: NatsServer, options: NatsKeeperOptions) {
    this.#o = options;
    this.#server = first;
    this.#watch(first);
    const timeoutMs = options.answerTimeoutMs ?? 10_000;
    if (timeoutMs > 0) {
      const every = heartbeatIntervalMs(timeoutMs);
      this.#probe = setInterval(() => void this.#check(timeoutMs, every), every);
      this.#probe.unref();
    }
  }

  /** Probes the running server; one silent past the timeout is killed, and restarted on exit. */
  async #check(timeoutMs: number, every: number): Promise<void> {
    if (this.#probing || this.#stopping || this.#down) return;
    const server = this.#server;
    if (this.#killed !== undefined) return;
    this.#probing = true;
    try {
      if (await natsAnswers(server.host, server.port, every)) {
        this.#answeredAt = Date.now();
        return;
      }
    } finally {
      this.#probing = false;
    }
    const silent = Date.now() - this.#answeredAt;
    if (silent <= timeoutMs || this.#stopping || server !== this.#server) return;
    const detail = `did not answer a connection for ${secondsText(silent)}`;
    this.#killed = { reason: 'unresponsive', detail };
    this.#o.onKill?.(server, detail);
    signalGroup(server.pid, 'SIGKILL');
  }

  /** The server running now (or the last one, while a restart is pending). */
  get server(): NatsServer {
    return this.#server;
  }

  /** Kills the server at once (SIGKILL) and restarts nothing more; does not wait. */
  killNow(): void {
    this.#stopping = true;
    clearInterval(this.#probe);
    clearTimeout(this.#timer);
    signalGroup(this.#server.pid, 'SIGKILL');
  }

  /** Stops restarting, waits for a restart under way, and stops the server. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#probe);
    clearTimeout(this.#timer);
    await this.#starting;
    await this.#server.stop();
  }

  #watch(server: NatsServer): void {
    void server.exited.then((exit) => {
      if (this.#stopping || server !== this.#server) return;
      const delayMs = this.#backoff(Date.now() - this.#startedAt);
      const killed = this.#killed;
      this.#down = true;
      this.#o.onExit?.(exit, delayMs, killed);
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
    this.#answeredAt = Date.now();
    this.#killed = undefined;
    this.#down = false;
    this.#watch(server);
    this.#o.onRestarted?.(server);
  }
}
