import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  connectBus,
  startNatsCluster as startCluster,
  startNatsServer,
  type BusOptions,
} from '../../src/bus/index.js';
import type { NatsExit, NatsServer } from '../../src/bus/launcher.js';
import { closedPort } from './ports.js';
import { waitFor } from './wait.js';
import { DISPATCH_QUEUE_GROUP, dispatchSubject } from '../../src/protocol/index.js';
import { expect } from 'vitest';

export interface TestNats extends AsyncDisposable {
  readonly server: NatsServer;
  readonly url: string;
  /** Opens a client; every client opened here is closed on dispose. */
  connect(options?: Partial<BusOptions>): Promise<NatsConnection>;
  /**
   * Stops the server (SIGTERM) and starts it again on the same port with the same config and
   * JetStream store, as `caesar up`'s keeper would; clients reconnect by themselves.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The one way tests get a NATS server: a real nats-server on a free loopback port (from this
 * vitest worker's own slice, `ports.ts`), killed on teardown (`await using nats = await
 * startNats()`). Pass `config` (nats-server config syntax) for accounts and permissions,
 * `jetstream` for JetStream with a file store in a temp directory (as `caesar up` runs it).
 * Fails with an install hint when nats-server is missing.
 */
export async function startNats(
  opts: { config?: string; jetstream?: boolean } = {},
): Promise<TestNats> {
  let dir: string | undefined;
  let configFile: string | undefined;
  if (opts.config !== undefined || opts.jetstream === true) {
    dir = await mkdtemp(join(tmpdir(), 'caesar-nats-'));
  }
  if (opts.config !== undefined) {
    configFile = join(dir!, 'nats.conf');
    await writeFile(configFile, opts.config);
  }
  const args = opts.jetstream === true ? ['-js', '-sd', join(dir!, 'jetstream')] : [];
  // a port of this worker's own, not one the kernel hands out: `restart()` binds it again,
  // and meanwhile no other file's server or connection can have been given it
  let server = await startNatsServer({ configFile, args, port: await closedPort() });
  const clients: NatsConnection[] = [];
  const stop = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await server.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  return {
    get server() {
      return server;
    },
    url: server.url,
    async connect(options = {}) {
      const nc = await connectBus({ servers: server.url, reconnectTimeWaitMs: 100, ...options });
      clients.push(nc);
      return nc;
    },
    async restart() {
      const port = server.port;
      await server.stop();
      server = await startNatsServer({ configFile, args, port });
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

export interface TestNatsCluster extends AsyncDisposable {
  readonly servers: readonly NatsServer[];
  /** Every server's client URL, in order. */
  readonly urls: readonly string[];
  /**
   * Opens a client to server `node` only (`servers: [its URL]`): where it connects is known,
   * and it learns the others from the cluster (nats.js's server discovery). `servers` in
   * `options` overrides that. Every client opened here is closed on dispose.
   */
  connect(node: number, options?: Partial<BusOptions>): Promise<NatsConnection>;
  /** `kill -9` of server `node`'s nats-server process; resolves once it has exited. */
  kill(node: number): Promise<NatsExit>;
  /**
   * Starts server `node` again as `caesar up`'s keeper would (same ports, routes to every
   * other server) and resolves once it has a route to each live one.
   */
  restart(node: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real cluster of `size` nats-servers on free loopback ports, routed to each other (the
 * same code as `caesar up --cluster`), resolved once every server has a route to every
 * other. `config` (nats-server syntax) is included by every server, for users and
 * permissions; `jetstream` gives every server JetStream with a store of its own (the
 * clustered JetStream of `caesar up --cluster`, ADR 0101).
 */
export async function startNatsCluster(
  size: number,
  opts: { config?: string; jetstream?: boolean } = {},
): Promise<TestNatsCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-nats-cluster-'));
  let baseConfig: string | undefined;
  if (opts.config !== undefined) {
    baseConfig = join(dir, 'base.conf');
    await writeFile(baseConfig, opts.config);
  }
  // the monitoring port (tests only) says when the mesh is complete: /routez per server
  const jetstream = opts.jetstream === true ? { jetstream: { dir: join(dir, 'jetstream') } } : {};
  const cluster = await startCluster({
    size,
    dir,
    baseConfig,
    args: ['-m', '-1'],
    ...jetstream,
  }).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  const servers = cluster.nodes.map((n) => n.server);
  const clients: NatsConnection[] = [];
  const dead = new Set<NatsServer>();
  const stop = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.allSettled(servers.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  const meshed = async () => {
    const live = servers.filter((s) => !dead.has(s));
    const ids = live.map(serverId);
    await waitFor(
      async () =>
        (await Promise.all(live.map(routedPeers))).every(
          (peers, i) => ids.filter((id) => !peers.has(id) && id !== ids[i]).length === 0,
        ),
      `every live server of the cluster to have a route to the ${live.length - 1} others`,
      10_000,
    );
  };
  try {
    await meshed();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    servers,
    urls: cluster.urls,
    async connect(node, options = {}) {
      const servers = [cluster.urls[node]!];
      const nc = await connectBus({ servers, reconnectTimeWaitMs: 100, ...options });
      clients.push(nc);
      return nc;
    },
    async kill(node) {
      const server = servers[node]!;
      dead.add(server);
      process.kill(server.serverPid ?? server.pid, 'SIGKILL');
      return server.exited;
    },
    async restart(node) {
      servers[node] = await startNatsServer(cluster.nodes[node]!.restartOptions);
      await meshed();
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** The ids of the servers `server` has a route to, from its monitoring endpoint. */
async function routedPeers(server: NatsServer): Promise<Set<string>> {
  const port = /Starting http monitor on \S+:(\d+)/.exec(server.output())?.[1];
  if (port === undefined) return new Set();
  const res = await fetch(`http://${server.host}:${port}/routez`);
  const routez = (await res.json()) as { routes?: { remote_id: string }[] };
  return new Set((routez.routes ?? []).map((r) => r.remote_id));
}

/** The server's id, from its start-up banner. */
function serverId(server: NatsServer): string {
  const id = /\[INF\]\s+ID:\s+(\w+)/.exec(server.output())?.[1];
  if (id === undefined) throw new Error(`no server id in the output of ${server.url}`);
  return id;
}

/** Waits for the connection's next server error, such as a publish permission violation. */
export async function nextServerError(nc: NatsConnection): Promise<Error> {
  for await (const s of nc.status()) if (s.type === 'error') return s.error;
  throw new Error('connection closed without a server error');
}

/** Resolves with the error the server answers a forbidden subscription with. */
export function refusedSubscription(
  nc: NatsConnection,
  subject: string,
  queue?: string,
): Promise<Error> {
  return new Promise((resolve) => {
    nc.subscribe(subject, {
      ...(queue === undefined ? {} : { queue }),
      callback: (err) => {
        if (err) resolve(err);
      },
    });
  });
}

/**
 * A calculator worker's identity (its seed file) may neither receive another tool's calls
 * nor send a dispatch: the server refuses both.
 */
export async function expectCalculatorWorkerContained(
  servers: string,
  seedFile: string,
): Promise<void> {
  const nc = await connectBus({ servers, auth: { kind: 'nkey', seedFile } });
  try {
    const refused = await refusedSubscription(
      nc,
      dispatchSubject('web_search'),
      DISPATCH_QUEUE_GROUP,
    );
    expect(refused.message).toMatch(/permissions violation for subscription/i);
    const denied = nextServerError(nc);
    nc.publish(dispatchSubject('calculator'), '{}');
    expect((await denied).message).toMatch(
      /permissions violation for publish to "caesar\.dispatch\.tool\.calculator"/i,
    );
  } finally {
    await nc.close();
  }
}

/** Linux: a process's name and parent pid, from /proc. */
function procInfo(pid: number): { comm: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { comm, ppid };
  } catch {
    return undefined;
  }
}

/**
 * The nats-server process behind the pid `caesar up` printed: that pid itself, or the
 * nats-server child of the guard it names. What an operator's `kill -9` would hit.
 */
export function natsServerPid(printed: number): number {
  if (procInfo(printed)?.comm === 'nats-server') return printed;
  const child = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .find((pid) => {
      const info = procInfo(pid);
      return info?.ppid === printed && info.comm === 'nats-server';
    });
  if (child === undefined) throw new Error(`no nats-server process under pid ${printed}`);
  return child;
}
