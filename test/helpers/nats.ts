import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectBus, startNatsServer, type BusOptions } from '../../src/bus/index.js';
import type { NatsServer } from '../../src/bus/launcher.js';
import { DISPATCH_QUEUE_GROUP, dispatchSubject } from '../../src/protocol/index.js';
import { expect } from 'vitest';

export interface TestNats extends AsyncDisposable {
  readonly server: NatsServer;
  readonly url: string;
  /** Opens a client; every client opened here is closed on dispose. */
  connect(options?: Partial<BusOptions>): Promise<NatsConnection>;
  stop(): Promise<void>;
}

/**
 * The one way tests get a NATS server: a real nats-server on a free loopback port, killed on
 * teardown (`await using nats = await startNats()`). Pass `config` (nats-server config
 * syntax) for accounts and permissions. Fails with an install hint when nats-server is
 * missing.
 */
export async function startNats(opts: { config?: string } = {}): Promise<TestNats> {
  let dir: string | undefined;
  let configFile: string | undefined;
  if (opts.config !== undefined) {
    dir = await mkdtemp(join(tmpdir(), 'caesar-nats-'));
    configFile = join(dir, 'nats.conf');
    await writeFile(configFile, opts.config);
  }
  const server = await startNatsServer({ configFile });
  const clients: NatsConnection[] = [];
  const stop = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await server.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  return {
    server,
    url: server.url,
    async connect(options = {}) {
      const nc = await connectBus({ servers: server.url, reconnectTimeWaitMs: 100, ...options });
      clients.push(nc);
      return nc;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
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
