import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { startNatsServer, type NatsServer, type NatsServerOptions } from './launcher.js';

/** A cluster of nats-servers on one host, each on its own client and route port. */
export interface NatsClusterOptions {
  /** How many servers. At least 2. */
  size: number;
  /** Where each server's config (`node-<i>.conf`, mode 0600) is written. */
  dir: string;
  /**
   * A nats-server config every server includes (users and permissions): one source of the
   * identities for all of them. @default none (no client auth)
   */
  baseConfig?: string;
  /** @default '127.0.0.1' (loopback only, the routes too) */
  host?: string;
  /** Client port of the first server; the i-th listens on `port + i`. 0 or absent: any free ones. */
  port?: number;
  /** The cluster's name. @default 'caesar' */
  name?: string;
  /** Extra command-line arguments of every server. */
  args?: string[];
  binary?: string;
  readyTimeoutMs?: number;
  /** Clustered JetStream on every server (ADR 0101). @default off (core NATS only) */
  jetstream?: ClusterJetStream;
}

/**
 * JetStream on every server of the cluster: each server keeps its own store under `dir`
 * (`node-<i>`) and is named `<cluster name>-<i>` (clustered JetStream needs a unique name per
 * server, and the same name after a restart so that its store and its Raft groups are its own).
 */
export interface ClusterJetStream {
  /** Parent of each server's store directory. */
  dir: string;
  /** Cap on memory-backed streams, per server. @default 64 MiB */
  maxMemoryBytes?: number;
  /** Cap on file-backed streams, per server. @default 1 GiB */
  maxFileBytes?: number;
}

/** Per-server JetStream caps sized for a Raspberry Pi (ADR 0101). */
export const CLUSTER_JETSTREAM_DEFAULTS = {
  maxMemoryBytes: 64 * 1024 * 1024,
  maxFileBytes: 1024 * 1024 * 1024,
} as const;

/** One server of the cluster, and how to start it again as it was. */
export interface NatsClusterNode {
  readonly server: NatsServer;
  /** Same client port, same route port, routes to every other server. */
  readonly restartOptions: NatsServerOptions;
}

export interface NatsCluster {
  readonly nodes: readonly NatsClusterNode[];
  /** Every server's client URL, in order: what clients are given. */
  readonly urls: readonly string[];
  /** Stops every server. */
  stop(): Promise<void>;
}

/** The user the servers authenticate each other's routes with; its password is per run. */
const ROUTE_USER = 'route';

/**
 * Starts `size` nats-servers routed to each other (ADR 0051). Each route port is picked by
 * the server itself (no window in which another process could take a port chosen for it):
 * a server is started with routes to those already running, then every config is rewritten
 * with its own ports and routes to all the others, so that a server started again from
 * `restartOptions` rejoins on the same ports. Routes authenticate with a password made for
 * this run and written only into these configs: without it, anyone who can reach a route
 * port would be a server of the cluster and see every message, past the users' NKEY auth.
 * @throws the launcher's error (every server started is stopped first).
 */
export async function startNatsCluster(options: NatsClusterOptions): Promise<NatsCluster> {
  if (!Number.isInteger(options.size) || options.size < 2) {
    throw new RangeError(`a cluster needs at least 2 servers, not ${options.size}`);
  }
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const plan = clusterPlan(options);
  const started: NatsServer[] = [];
  try {
    for (let i = 0; i < options.size; i++) {
      const routes = started.map((s) => plan.routeUrl(s.routePort!));
      // picking the ports: JetStream comes later (a clustered one refuses a server with no routes)
      await plan.write(i, 0, routes, false);
      started.push(
        await startNatsServer(plan.serverOptions(i, options.port ? options.port + i : 0)),
      );
    }
    const restartOptions: NatsServerOptions[] = [];
    for (const [i, server] of started.entries()) {
      const others = started.filter((s) => s !== server).map((s) => plan.routeUrl(s.routePort!));
      await plan.write(i, server.routePort!, others, true);
      restartOptions.push(plan.serverOptions(i, server.port));
    }
    if (options.jetstream !== undefined) await restartAll(started, restartOptions);
    return {
      nodes: started.map((server, i) => ({ server, restartOptions: restartOptions[i]! })),
      urls: started.map((s) => s.url),
      stop: async () => void (await Promise.all(started.map((s) => s.stop()))),
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    throw err;
  }
}

/**
 * Stops every server and starts them all again from their final configs (their own ports,
 * routes to every other, JetStream): a clustered JetStream then boots from a complete routes
 * list, as nats-server expects, and elects its meta-leader once the routes are up. `servers`
 * is updated in place, so whoever holds it stops the new processes.
 */
async function restartAll(servers: NatsServer[], options: NatsServerOptions[]): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
  const again = await Promise.allSettled(options.map((o) => startNatsServer(o)));
  servers.splice(0);
  for (const r of again) if (r.status === 'fulfilled') servers.push(r.value);
  const failed = again.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/** Where each server's config goes, what it says, and how each server is started. */
function clusterPlan(options: NatsClusterOptions) {
  const host = options.host ?? '127.0.0.1';
  const hostPort = (port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const password = randomBytes(24).toString('base64url');
  const file = (i: number) => join(options.dir, `node-${i + 1}.conf`);
  const name = options.name ?? 'caesar';
  const js = options.jetstream;
  return {
    routeUrl: (port: number) => `nats-route://${ROUTE_USER}:${password}@${hostPort(port)}`,
    /** Route port 0: the server picks one (`-1` in its config). */
    write: (i: number, routePort: number, routes: string[], withJetStream: boolean) => {
      const cluster = {
        name,
        listen: hostPort(routePort || -1),
        authorization: { user: ROUTE_USER, password, timeout: 2 },
        routes,
      };
      const lines = [
        `# Server ${i + 1} of ${options.size} of a cluster started by caesar (ADR 0051); rewritten on`,
        '# every start. It holds the routes password of this run: keep it for its owner only.',
        ...(options.baseConfig === undefined
          ? []
          : [`include ${JSON.stringify(relative(dirname(file(i)), options.baseConfig))}`]),
        `cluster: ${JSON.stringify(cluster, null, 2)}`,
        ...(js === undefined || !withJetStream
          ? []
          : jetStreamLines(`${name}-${i + 1}`, join(js.dir, `node-${i + 1}`), js)),
        '',
      ];
      return writeFile(file(i), lines.join('\n'), { mode: 0o600 });
    },
    serverOptions: (i: number, port: number): NatsServerOptions => ({
      host,
      port,
      configFile: file(i),
      cluster: true,
      ...(options.args ? { args: options.args } : {}),
      ...(options.binary ? { binary: options.binary } : {}),
      ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
    }),
  };
}

/** The server's name and its JetStream block: its own store, explicit caps, no domain. */
function jetStreamLines(serverName: string, storeDir: string, js: ClusterJetStream): string[] {
  const jetstream = {
    store_dir: storeDir,
    max_memory_store: js.maxMemoryBytes ?? CLUSTER_JETSTREAM_DEFAULTS.maxMemoryBytes,
    max_file_store: js.maxFileBytes ?? CLUSTER_JETSTREAM_DEFAULTS.maxFileBytes,
  };
  return [
    `server_name: ${JSON.stringify(serverName)}`,
    `jetstream: ${JSON.stringify(jetstream, null, 2)}`,
  ];
}
