import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectBus, startNatsServer, type BusOptions } from '../../src/bus/index.js';
import type { NatsServer } from '../../src/bus/launcher.js';

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
