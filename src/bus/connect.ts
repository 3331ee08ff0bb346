import { readFile } from 'node:fs/promises';
import {
  connect as natsConnect,
  credsAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  type Authenticator,
  type NatsConnection,
} from '@nats-io/transport-node';
import type { BusAuth } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { CaesarError } from '../errors/index.js';

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
   * @default '_INBOX'
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

class BusConnectError extends CaesarError {
  declare readonly code: 'bus_connect_failed';
  override readonly name = 'BusConnectError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('bus_connect_failed', message, options);
  }
}

async function readSecretFile(path: string, what: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    throw new BusConnectError(`cannot read ${what} file '${path}': ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Builds the authenticator; seed and creds files are read here and never logged. */
async function buildAuthenticator(auth: BusAuth): Promise<Authenticator | undefined> {
  switch (auth.kind) {
    case 'none':
      return undefined;
    case 'token':
      return tokenAuthenticator(auth.token);
    case 'nkey': {
      const seed = await readSecretFile(auth.seedFile, 'NKEY seed');
      if (!/^S[UANOC][A-Z2-7]{50,}$/.test(seed)) {
        throw new BusConnectError(`'${auth.seedFile}' does not hold an NKEY seed (expected 'SU…')`);
      }
      return nkeyAuthenticator(new TextEncoder().encode(seed));
    }
    case 'creds': {
      const creds = await readSecretFile(auth.credsFile, 'credentials');
      return credsAuthenticator(new TextEncoder().encode(creds));
    }
  }
}

/**
 * Connects to NATS and reconnects forever with jittered backoff: a worker on a remote host
 * rides out a server restart or a network blip without an operator.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const authenticator = await buildAuthenticator(options.auth ?? { kind: 'none' });
  let nc: NatsConnection;
  try {
    nc = await natsConnect({
      servers: options.servers,
      name: options.name,
      inboxPrefix: options.inboxPrefix,
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
    throw new BusConnectError(`cannot connect to NATS at ${where}: ${(err as Error).message}`, {
      cause: err,
    });
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
