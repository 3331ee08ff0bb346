import { readFile } from 'node:fs/promises';
import {
  AuthorizationError,
  backoff,
  connect as natsConnect,
  ConnectionError,
  credsAuthenticator,
  TimeoutError,
  tokenAuthenticator,
  type Authenticator,
  type NatsConnection,
} from '@nats-io/transport-node';
import type { BusAuth } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { inboxPrefix } from '../protocol/index.js';
import { nkeySeedKey, nkeySign, type NkeyPrivateKey } from '../protocol/nkey-ed25519.js';
import { errorClass } from '../errors/index.js';
import { waitAtMost } from '../clock/index.js';

/** How a process authenticates to NATS: the config's own type (src/config), taken as is. */

export interface BusOptions {
  /** One URL or several (a cluster), such as `nats://127.0.0.1:4222`. */
  servers: string | string[];
  /** @default { kind: 'none' } */
  auth?: BusAuth;
  /** Connection name shown by `nats server report connections`. */
  name?: string;
  /**
   * Inbox prefix for replies. Least-privilege deployments give each identity its own
   * (`_INBOX.<identity>`) and only allow it to subscribe there.
   * @default `_INBOX.<public key>` with an NKEY (the block `caesar legion identity new`
   *   prints allows exactly that), else '_INBOX'
   */
  inboxPrefix?: string;
  /** Base wait between reconnect attempts. @default 2000 */
  reconnectTimeWaitMs?: number;
  /** Random jitter added to each reconnect wait. @default 1000 */
  reconnectJitterMs?: number;
  /** How long the first connect may take. @default 5000 */
  connectTimeoutMs?: number;
  /** Keep retrying the first connect instead of failing at once. @default false */
  waitOnFirstConnect?: boolean;
  logger?: Logger;
}

const BusConnectError = errorClass('bus_connect_failed');

/**
 * The server refused the identity this process connected with ("Authorization Violation"):
 * none where one is needed, or a key it has no user for. Trying again would be refused again.
 * The message names the server; callers append whose identity it was and what to use instead.
 */
export const BusAuthError = errorClass(
  'bus_auth_refused',
  (url: string, reason: string, options?: { cause?: unknown }) => ({
    params: { url, reason },
    /** `url`: the server(s) that refused, as given to connect. */
    fields: { url },
    options,
  }),
);
export type BusAuthError = InstanceType<typeof BusAuthError>;

async function readSecretFile(path: string, what: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    throw new BusConnectError(
      { action: 'read', what: `${what} file '${path}'`, reason: (err as Error).message },
      { cause: err },
    );
  }
}

/**
 * The one reader of NKEY seed files: the seed (never logged) and its public key.
 * @throws {BusConnectError} naming the file when it cannot be read (its cause is the file
 *   system's error) or does not hold a valid seed
 */
export async function readNkeySeed(
  seedFile: string,
): Promise<NkeyPrivateKey & { seed: Uint8Array }> {
  const text = await readSecretFile(seedFile, 'NKEY seed');
  if (!/^S[UANOC][A-Z2-7]{50,}$/.test(text)) {
    throw new BusConnectError({
      action: 'use',
      what: `NKEY seed file '${seedFile}'`,
      reason: "it does not hold an NKEY seed (expected 'SU…')",
    });
  }
  const seed = new TextEncoder().encode(text);
  try {
    return { seed, ...nkeySeedKey(seed) };
  } catch (err) {
    throw new BusConnectError(
      {
        action: 'use',
        what: `NKEY seed file '${seedFile}'`,
        reason: 'it is not a valid NKEY seed',
      },
      { cause: err },
    );
  }
}

interface Credentials {
  authenticator?: Authenticator;
  /** The NKEY's public key, when the identity is one. */
  publicKey?: string;
}

/**
 * nats.js's `nkeyAuthenticator`, signing with node:crypto: the server's login nonce signed
 * with the identity's key, the same bytes in the same base64. The library's own decodes the
 * seed and signs with pure-JS tweetnacl at every connect and reconnect, 150-220 ms of CPU
 * in a worker started with `--no-opt` (ADR 0103).
 */
function nkeyLogin(publicKey: string, key: NkeyPrivateKey['key']): Authenticator {
  return (nonce?: string) => ({
    nkey: publicKey,
    sig: nonce ? nkeySign(key, new TextEncoder().encode(nonce)) : '',
  });
}

/** Builds the authenticator; seed and creds files are read here and never logged. */
async function buildAuthenticator(auth: BusAuth): Promise<Credentials> {
  switch (auth.kind) {
    case 'none':
      return {};
    case 'token':
      return { authenticator: tokenAuthenticator(auth.token) };
    case 'nkey': {
      const { seed, publicKey, key } = await readNkeySeed(auth.seedFile);
      seed.fill(0);
      return { authenticator: nkeyLogin(publicKey, key), publicKey };
    }
    case 'creds': {
      const creds = await readSecretFile(auth.credsFile, 'credentials');
      return { authenticator: credsAuthenticator(new TextEncoder().encode(creds)) };
    }
  }
}

/**
 * Connects to NATS and reconnects forever with jittered backoff: a worker on a remote host
 * rides out a server restart or a network blip without an operator.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const { authenticator, publicKey } = await buildAuthenticator(options.auth ?? { kind: 'none' });
  let nc: NatsConnection;
  try {
    nc = await natsConnect({
      servers: options.servers,
      name: options.name,
      inboxPrefix:
        options.inboxPrefix ?? (publicKey === undefined ? undefined : inboxPrefix(publicKey)),
      ...(authenticator ? { authenticator } : {}),
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: options.reconnectTimeWaitMs ?? 2000,
      reconnectJitter: options.reconnectJitterMs ?? 1000,
      timeout: options.connectTimeoutMs ?? 5000,
      waitOnFirstConnect: options.waitOnFirstConnect ?? false,
    });
  } catch (err) {
    const where = Array.isArray(options.servers) ? options.servers.join(', ') : options.servers;
    if (err instanceof AuthorizationError) {
      throw new BusAuthError(where, err.message, { cause: err });
    }
    throw new BusConnectError(
      { action: 'connect to', what: `NATS at ${where}`, reason: (err as Error).message },
      { cause: err },
    );
  }
  if (options.logger) watchStatus(nc, options.logger);
  return nc;
}

function watchStatus(nc: NatsConnection, logger: Logger): void {
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error') {
        // Permission violations and other server errors: name them, an operator must act.
        logger.error({ status: s.type, err: s.error }, `nats error: ${s.error.message}`);
      } else if (s.type === 'disconnect' || s.type === 'reconnect') {
        logger.warn({ status: s.type, server: s.server }, 'nats connection status');
      }
    }
  })().catch(() => undefined);
}

/** How {@link connectBusWhenReachable} waits for a server that is not reachable yet. */
export interface ReachOptions {
  /** Stops waiting: the promise rejects with the last connect error. */
  signal?: AbortSignal;
  /** Called before each wait, with the error that caused it. */
  onWait?: (err: Error, delayMs: number, attempt: number) => void;
  /** Waits between attempts, jittered; the last repeats. @default 0.5 s, 1, 2, 4, 8, 15 s */
  policyMs?: readonly number[];
}

const REACH_POLICY_MS: readonly number[] = [500, 1000, 2000, 4000, 8000, 15_000];

/**
 * Connects like {@link connectBus}, and waits for a server that is not reachable yet (the
 * connection refused or timed out, a host name that does not resolve yet: NATS starting after
 * the worker, a Pi whose network comes up late) by trying again with jittered backoff until it
 * is, or until `signal` aborts. Anything else fails at once: a server that refuses the
 * credentials, or credentials that cannot be read, would refuse them again.
 */
export async function connectBusWhenReachable(
  options: BusOptions,
  reach: ReachOptions = {},
): Promise<NatsConnection> {
  const waits = backoff([...(reach.policyMs ?? REACH_POLICY_MS)]);
  for (let attempt = 0; ; attempt++) {
    try {
      return await connectBus(options);
    } catch (err) {
      if (!notReachableYet(err) || reach.signal?.aborted) throw err;
      const delayMs = waits.backoff(attempt);
      reach.onWait?.(err as Error, delayMs, attempt + 1);
      await delay(delayMs, reach.signal);
      if (reach.signal?.aborted) throw err;
    }
  }
}

/** A first connect that failed because no server answered (yet), as opposed to refused us. */
function notReachableYet(err: unknown): boolean {
  if (!(err instanceof BusConnectError)) return false;
  const cause = err.cause;
  if (cause instanceof TimeoutError || cause instanceof ConnectionError) return true;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ECONNREFUSED';
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * `nc.flush()` that rides out a disconnect: a flush sent while the connection is down fails
 * with "connection disconnected" (the client keeps reconnecting), so it waits for the next
 * reconnect (at most `pollMs`, in case it came before the wait began) and flushes again.
 * Rejects only once the connection is closed for good.
 */
export async function flushWhenConnected(nc: NatsConnection, pollMs = 1000): Promise<void> {
  for (;;) {
    try {
      await nc.flush();
      return;
    } catch (err) {
      if (nc.isClosed()) throw err;
      await reconnectOrTimeout(nc, pollMs);
    }
  }
}

/** Resolves at the connection's next reconnect, when it closes, or after `ms`. */
async function reconnectOrTimeout(nc: NatsConnection, ms: number): Promise<void> {
  const statuses = nc.status();
  const reconnect = (async () => {
    for await (const s of statuses) if (s.type === 'reconnect') return;
  })().catch(() => undefined);
  try {
    await waitAtMost(Promise.race([reconnect, nc.closed()]), ms);
  } finally {
    (statuses as Partial<{ stop: () => void }>).stop?.();
  }
}
