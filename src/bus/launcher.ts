import { accessSync, constants } from 'node:fs';
import { createConnection } from 'node:net';
import { constants as osConstants } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Logger } from '../log/index.js';
import { signalGroup, spawnChild, type ChildProcess } from '../process/index.js';
import { errorClass } from '../errors/index.js';

/** Where the launcher looks for `nats-server` after PATH (Debian installs it in /usr/sbin). */
const EXTRA_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/local/bin'];

const NATS_INSTALL_HINT =
  'was not found on PATH or in /usr/sbin. Install it with `apt-get install nats-server` ' +
  '(Debian/Ubuntu) or from https://github.com/nats-io/nats-server/releases, or pass its path.';

const NatsServerError = errorClass('nats_server_failed');

export interface NatsServerOptions {
  /** Path to the binary. @default found on PATH, then /usr/sbin */
  binary?: string;
  /** Client port; 0 or absent picks a free one. */
  port?: number;
  /** @default '127.0.0.1' (loopback only) */
  host?: string;
  /** Optional nats-server configuration file (accounts, permissions, ...). */
  configFile?: string;
  /** Extra command-line arguments. */
  args?: string[];
  /** How long to wait for the server to accept connections. @default 10000 */
  readyTimeoutMs?: number;
  /**
   * The config has a `cluster` block: wait for the route listener too (nats-server opens it
   * after the client port) and report its port as `routePort`. @default false
   */
  cluster?: boolean;
  logger?: Logger;
}

/** How a nats-server ended. */
export interface NatsExit {
  readonly code: number | null;
  /** The signal that killed the server itself (a `kill -9` shows as `SIGKILL`). */
  readonly signal: NodeJS.Signals | null;
}

export interface NatsServer extends AsyncDisposable {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Where the other servers of its cluster connect; only with the `cluster` option. */
  readonly routePort: number | undefined;
  /** The guard process (its process group holds the server). */
  readonly pid: number;
  /**
   * The nats-server process itself, read from its log prefix (`[pid] …`); undefined when a
   * config file turns that prefix off.
   */
  readonly serverPid: number | undefined;
  /** Resolves when the server has exited, whether stopped or dead on its own. */
  readonly exited: Promise<NatsExit>;
  /** Everything the server printed so far (bounded), for diagnostics. */
  output(): string;
  /** Stops the server and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** Finds the nats-server binary or throws with an install hint. */
function findNatsServer(explicit?: string): string {
  const candidates = explicit
    ? [explicit]
    : [...(process.env.PATH ?? '').split(delimiter), ...EXTRA_DIRS]
        .filter(Boolean)
        .map((d) => join(d, 'nats-server'));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // try the next one
    }
  }
  throw new NatsServerError({
    problem: explicit ? `at '${explicit}' is not an executable` : NATS_INSTALL_HINT,
    output: '',
  });
}

const LISTEN_RE = /Listening for client connections on ([^\s:]+|\[[^\]]+\]):(\d+)/;
const ROUTE_LISTEN_RE = /Listening for route connections on ([^\s:]+|\[[^\]]+\]):(\d+)/;
const PID_RE = /^\[(\d+)\] .*Listening for client connections/m;
const MAX_OUTPUT = 64 * 1024;

/** Starts nats-server on loopback and resolves once it accepts TCP connections. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const binary = findNatsServer(options.binary);
  const host = options.host ?? '127.0.0.1';
  const args = ['-a', host, '-p', String(options.port || -1)];
  if (options.configFile) args.push('-c', options.configFile);
  args.push(...(options.args ?? []));

  // under a guard in its own process group: no nats-server outlives its launcher (SIGKILL too)
  const { child, exited: ended } = spawnChild(binary, args, { guard: 'caesar-nats' });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-MAX_OUTPUT);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = ended.then(({ code, signal }) => {
    // what the guard leaves when the server dies on its own: its pipe watcher, and if the
    // guard itself was killed, the server (it would keep the port)
    signalGroup(child.pid, 'SIGTERM');
    child.stdin?.destroy();
    return serverExit(code, signal);
  });

  const stop = once(async () => {
    if (child.exitCode === null && child.signalCode === null) signalGroup(child.pid, 'SIGTERM');
    const killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(killTimer);
  });

  try {
    const readyMs = options.readyTimeoutMs ?? 10_000;
    const port = await waitForListen(child, () => output, LISTEN_RE, readyMs);
    await waitForTcp(host, port, readyMs);
    const routePort = options.cluster
      ? await waitForListen(child, () => output, ROUTE_LISTEN_RE, readyMs)
      : undefined;
    const url = `nats://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const serverPid = Number(PID_RE.exec(output)?.[1]) || undefined;
    options.logger?.info({ url, pid: child.pid, serverPid }, 'nats-server started');
    return {
      url,
      host,
      port,
      routePort,
      pid: child.pid ?? -1,
      serverPid,
      exited,
      output: () => output,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The guard exits with the server's status, so a server killed by a signal shows as code
 * 128 + n (the shell's convention): read the signal back out of it.
 */
function serverExit(code: number | null, signal: NodeJS.Signals | null): NatsExit {
  if (signal !== null || code === null || code <= 128) return { code, signal };
  const name = Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0];
  return name === undefined ? { code, signal } : { code: null, signal: name as NodeJS.Signals };
}

function waitForListen(
  child: ChildProcess,
  output: () => string,
  listening: RegExp,
  timeoutMs: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = listening.exec(output());
      if (m) {
        done();
        resolve(Number(m[2]));
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(
        new NatsServerError({
          problem: `exited (code ${code}) before it was ready`,
          output: `:\n${output().trim()}`,
        }),
      );
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new NatsServerError({
          problem: `was not ready within ${timeoutMs} ms`,
          output: `:\n${output().trim()}`,
        }),
      );
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

async function waitForTcp(host: string, port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = createConnection({ host, port }, () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until)
      throw new NatsServerError({ problem: `on ${host}:${port} refused connections`, output: '' });
    await new Promise((r) => setTimeout(r, 25));
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= fn());
}
