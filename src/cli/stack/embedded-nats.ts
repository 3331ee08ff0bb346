// The launcher's own file, not the bus index: `caesar up` runs nats-server and holds no NATS
// client (ADR 0048, addendum 2); the index would bring the client's chunk into its process.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startNatsCluster } from '../../bus/cluster.js';
import { startNatsServer, type NatsServer, type NatsServerOptions } from '../../bus/launcher.js';
import type { CaesarConfig } from '../../config/index.js';
import { shippedToolNames } from '../../../workers/index.js';
import { mintEmbeddedAuth, type EmbeddedAuth } from './embedded-auth.js';
import type { BrainMailbox } from './brain-mailbox.js';
import { NatsKeeper, type NatsKeeperEvents } from './nats-keeper.js';
import { statusLine, type Say } from './status.js';

/** `caesar up`'s nats-server(s): running, kept running, and the identities they know. */
export interface EmbeddedNats {
  /** `nats://host:port` of each server, one unless `--cluster`; the same after a restart. */
  readonly urls: readonly string[];
  /** One per server. */
  readonly keepers: readonly NatsKeeper[];
  /** The NKEY identities minted for this run; undefined with `embedded.nats_config`. */
  readonly auth?: EmbeddedAuth;
  /** Copies of the job streams the brain keeps (ADR 0101): 1, or 3 on 3 or more servers. */
  readonly jetStreamReplicas: number;
}

const NAME = 'nats-server';
/** Where `caesar up --cluster` writes each server's config (ADR 0051). */
const CLUSTER_DIR = 'nats-cluster';
/**
 * Where each server of `caesar up --cluster` keeps its JetStream store (`node-<i>`): apart
 * from CLUSTER_DIR, which is made new each run, so that queued jobs survive a restart.
 */
const CLUSTER_JETSTREAM_DIR = 'jetstream-cluster';

/**
 * Replicas of the job streams on `size` servers (ADR 0101): 3 from 3 servers on, so a job
 * survives a dead server; 1 on 2, where a dead server takes the quorum of any replicated
 * stream (and of the meta-leader) with it, and a second copy on the same disk guards nothing.
 */
export function jetStreamReplicas(size: number): number {
  return size >= 3 ? 3 : 1;
}

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
  watch: NatsWatch,
): Promise<EmbeddedNats> {
  const { natsHost: host, natsPort, natsConfig } = config.embedded;
  // every shipped tool gets an identity, the ones not started too: a worker started later with
  // `caesar legion serve-tool <tool>` in this data dir serves under its own (runtime.json)
  const minted = [...new Set([...tools, ...shippedToolNames()])];
  const auth =
    natsConfig === undefined ? await mintEmbeddedAuth(config.dataDir, minted) : undefined;
  const configFile = natsConfig ?? auth?.serverConfig;
  // JetStream on, its store in the data dir, so jobs survive a restart (ADR 0098)
  const args = jetStreamArgs(config.dataDir);
  const first = await startOnPort({ host, port: natsPort, configFile, args });
  const how = auth ? 'loopback only, one NKEY identity per part' : natsConfig;
  say(statusLine(NAME, `${first.url}  (pid ${natsPid(first)}, ${how})`));
  const port = first.port;
  const keeper = new NatsKeeper(first, {
    restart: () => startNatsServer({ host, port, configFile, args }),
    answerTimeoutMs: watch.timeoutMs,
    ...keeperEvents(NAME, port, say, watch.mailbox),
  });
  return { urls: [first.url], keepers: [keeper], jetStreamReplicas: 1, ...(auth ? { auth } : {}) };
}

/**
 * `caesar up --cluster <size>`: `size` nats-servers on loopback, routed to each other, each
 * with the identities minted for this run and kept running by a keeper of its own (ADR
 * 0051). Client ports follow `--nats-port` (`port`, `port + 1`, …; 0: any free ones); the
 * route ports are picked by the servers and kept for restarts.
 * @throws {Error} saying what to do when a port is taken.
 */
export async function startEmbeddedCluster(
  config: CaesarConfig,
  tools: readonly string[],
  size: number,
  say: Say,
  watch: NatsWatch,
): Promise<EmbeddedNats> {
  const { natsHost: host, natsPort } = config.embedded;
  const minted = [...new Set([...tools, ...shippedToolNames()])];
  const auth = await mintEmbeddedAuth(config.dataDir, minted);
  const dir = join(config.dataDir, CLUSTER_DIR);
  // a fresh directory each run: the configs of an earlier run hold its routes password
  await rm(dir, { recursive: true, force: true });
  let cluster;
  try {
    cluster = await startNatsCluster({
      size,
      dir,
      baseConfig: auth.serverConfig,
      host,
      port: natsPort,
      // JetStream on every server, each with its own store and name (ADR 0101)
      jetstream: { dir: join(config.dataDir, CLUSTER_JETSTREAM_DIR) },
    });
  } catch (err) {
    if (!portTaken(err)) throw err;
    throw new Error(
      `a port from ${natsPort} to ${natsPort + size - 1} is taken (another nats-server or caesar up?). ` +
        'Stop it, or run with --nats-port 0 for any free ports.',
      { cause: err },
    );
  }
  const keepers = cluster.nodes.map(({ server, restartOptions }, i) => {
    const name = `${NAME} ${i + 1}`;
    say(
      statusLine(
        name,
        `${server.url}  (pid ${natsPid(server)}, routes on port ${server.routePort}, loopback only, one NKEY identity per part, JetStream ${jetStreamReplicas(size)} replica(s))`,
      ),
    );
    return new NatsKeeper(server, {
      restart: () => startNatsServer(restartOptions),
      answerTimeoutMs: watch.timeoutMs,
      ...keeperEvents(name, server.port, say, watch.mailbox),
    });
  });
  return { urls: cluster.urls, keepers, auth, jetStreamReplicas: jetStreamReplicas(size) };
}

/** Where `caesar up` keeps JetStream's file store (jobs, ADR 0098). */
const JETSTREAM_DIR = 'jetstream';

/** `-js -sd <data dir>/jetstream`: nats-server 2.9 with JetStream and a file store. */
function jetStreamArgs(dataDir: string): string[] {
  return ['-js', '-sd', join(dataDir, JETSTREAM_DIR)];
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

/** How `caesar up` watches its nats-servers (ADR 0070). */
export interface NatsWatch {
  /** A server that greets no connection for this long is killed and restarted; 0: never. */
  readonly timeoutMs: number;
  /** Where restarts go, for the brain's audit log. */
  readonly mailbox: BrainMailbox;
}

/** What `caesar up` says when a nats-server exits, comes back, or cannot. */
function keeperEvents(
  name: string,
  port: number,
  say: Say,
  mailbox: BrainMailbox,
): NatsKeeperEvents {
  let count = 0;
  return {
    onKill: (server, detail) =>
      say(statusLine(name, `pid ${natsPid(server)} ${detail}: killing it (SIGKILL)`)),
    onExit: (exit, delayMs, killed) => {
      const how = exit.signal ?? `code ${exit.code}`;
      say(
        statusLine(
          name,
          `${killed === undefined ? 'exited' : 'killed'} (${how}); restarting on port ${port} in ${delayMs} ms`,
        ),
      );
      mailbox.post({
        type: 'child_restarted',
        name: name.replace(' ', '-'),
        kind: 'nats',
        reason: killed?.reason ?? 'exited',
        detail: killed?.detail ?? `exited (${how})`,
        count: ++count,
        exit: { code: exit.code, signal: exit.signal },
        at: new Date().toISOString(),
        delay_ms: delayMs,
      });
    },
    onRestarted: (server) =>
      say(
        statusLine(
          name,
          `${server.url}  (pid ${natsPid(server)}) restarted; the brain and the workers reconnect by themselves`,
        ),
      ),
    onRestartFailed: (err, delayMs) => say(statusLine(name, restartFailure(err, port, delayMs))),
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
