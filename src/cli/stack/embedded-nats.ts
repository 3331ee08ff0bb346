// The launcher's own file, not the bus index: `caesar up` runs nats-server and holds no NATS
// client (ADR 0048, addendum 2); the index would bring the client's chunk into its process.
import { startNatsServer, type NatsServer, type NatsServerOptions } from '../../bus/launcher.js';
import type { CaesarConfig } from '../../config/index.js';
import { shippedToolNames } from '../../../workers/index.js';
import { mintEmbeddedAuth, type EmbeddedAuth } from './embedded-auth.js';
import { NatsKeeper, type NatsKeeperEvents } from './nats-keeper.js';
import { statusLine, type Say } from './status.js';

/** `caesar up`'s nats-server: running, kept running, and the identities it knows. */
export interface EmbeddedNats {
  /** `nats://host:port`; the same after a restart. */
  readonly url: string;
  readonly keeper: NatsKeeper;
  /** The NKEY identities minted for this run; undefined with `embedded.nats_config`. */
  readonly auth?: EmbeddedAuth;
}

const NAME = 'nats-server';

/**
 * Starts the embedded nats-server on loopback and keeps it running: a dead one comes back
 * on the same port with the same config, so the brain and the workers reconnect by
 * themselves with the identities they hold. Mints one NKEY identity per part first, unless
 * the operator's own server config (`embedded.nats_config`) manages auth.
 * @throws {Error} saying what to do when the port is taken.
 */
export async function startEmbeddedNats(
  config: CaesarConfig,
  tools: readonly string[],
  say: Say,
): Promise<EmbeddedNats> {
  const { natsHost: host, natsPort, natsConfig } = config.embedded;
  // every shipped tool gets an identity, the ones not started too: a worker started later with
  // `caesar legion serve-tool <tool>` in this data dir serves under its own (runtime.json)
  const minted = [...new Set([...tools, ...shippedToolNames()])];
  const auth =
    natsConfig === undefined ? await mintEmbeddedAuth(config.dataDir, minted) : undefined;
  const configFile = natsConfig ?? auth?.serverConfig;
  const first = await startOnPort({ host, port: natsPort, configFile });
  const how = auth ? 'loopback only, one NKEY identity per part' : natsConfig;
  say(statusLine(NAME, `${first.url}  (pid ${natsPid(first)}, ${how})`));
  const port = first.port;
  const keeper = new NatsKeeper(first, {
    restart: () => startNatsServer({ host, port, configFile }),
    ...keeperEvents(port, say),
  });
  return { url: first.url, keeper, ...(auth ? { auth } : {}) };
}

/** Starts the server; a taken port becomes an error that says what to do. */
async function startOnPort(options: NatsServerOptions): Promise<NatsServer> {
  try {
    return await startNatsServer(options);
  } catch (err) {
    if (!portTaken(err)) throw err;
    throw new Error(
      `port ${options.port} is taken (another nats-server or caesar up?). ` +
        'Stop it, or run with --nats-port 0 for any free port.',
      { cause: err },
    );
  }
}

/** What `caesar up` says when its nats-server exits, comes back, or cannot. */
function keeperEvents(port: number, say: Say): NatsKeeperEvents {
  return {
    onExit: (exit, delayMs) =>
      say(
        statusLine(
          NAME,
          `exited (${exit.signal ?? `code ${exit.code}`}); restarting on port ${port} in ${delayMs} ms`,
        ),
      ),
    onRestarted: (server) =>
      say(
        statusLine(
          NAME,
          `${server.url}  (pid ${natsPid(server)}) restarted; the brain and the workers reconnect by themselves`,
        ),
      ),
    onRestartFailed: (err, delayMs) => say(statusLine(NAME, restartFailure(err, port, delayMs))),
  };
}

function restartFailure(err: Error, port: number, delayMs: number): string {
  if (!portTaken(err))
    return `cannot restart: ${firstLine(err.message)}; retrying in ${delayMs} ms`;
  return `cannot restart: port ${port} is taken by another process; retrying in ${delayMs} ms (stop whatever listens on ${port}, or stop caesar up and start it with another --nats-port)`;
}

function portTaken(err: unknown): boolean {
  return /address already in use/i.test((err as Error).message);
}

/** The nats-server's own pid (what `ps` and `kill` see), else its guard's. */
function natsPid(server: NatsServer): number {
  return server.serverPid ?? server.pid;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
