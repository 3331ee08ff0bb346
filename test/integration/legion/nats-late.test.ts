import { afterEach, describe, expect, test } from 'vitest';
import { connectBus } from '../../../src/bus/index.js';
import { startNatsServer, type NatsServer } from '../../../src/bus/launcher.js';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { startCli, type RunningCli } from '../../helpers/cli.js';
import { rawDispatch } from '../../helpers/dispatch.js';
import { closedPort } from '../../helpers/ports.js';
import { waitFor } from '../../helpers/wait.js';
import { probeTool } from './tools.js';

// Issue 14, scope 2: a worker whose NATS is not up yet waits for it, and one whose NATS goes
// away while its tools start (the calculator warms a thread for a second or more) rides it out.

let servers: NatsServer[] = [];
let cli: RunningCli | undefined;
let served: ToolWorker | undefined;

afterEach(async () => {
  cli?.child.kill('SIGKILL');
  await cli?.exited;
  cli = undefined;
  await served?.stop();
  served = undefined;
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

async function natsOn(port: number): Promise<NatsServer> {
  const server = await startNatsServer({ port });
  servers.push(server);
  return server;
}

describe('a worker and a NATS server that is not there yet', () => {
  test('caesar legion serve-tool waits for NATS, saying so, and serves once it is up', async () => {
    const port = await closedPort();
    cli = startCli(
      ['legion', 'serve-tool', 'calculator', '--nats-url', `nats://127.0.0.1:${port}`],
      // reconnection, not grants, is under test: the raw dispatch below carries none
      { CAESAR_LOG__LEVEL: 'warn', CAESAR_WORKER__REQUIRE_GRANT: 'false' },
    );
    await waitFor(
      () => cli!.stderr().includes('NATS is not reachable yet'),
      'the worker to say it waits for NATS',
      30_000,
    );
    expect(cli.stderr()).toContain('connection refused');
    const server = await natsOn(port);
    const nc = await connectBus({ servers: server.url });
    try {
      const reply = await waitFor(
        async () => {
          try {
            return (await rawDispatch(nc, 'calculator', { expression: '6 * 7' })).reply;
          } catch {
            return undefined; // no responders until the worker has connected and subscribed
          }
        },
        'the worker to serve once NATS is up',
        60_000,
        250,
      );
      expect(reply).toMatchObject({ success: true, result: { value: 42 } });
    } finally {
      await nc.close();
    }
  }, 90_000);

  test('serveTools rides out a server that goes away while a tool starts', async () => {
    const port = await closedPort();
    const first = await natsOn(port);
    const nc = await connectBus({
      servers: first.url,
      reconnectTimeWaitMs: 100,
      reconnectJitterMs: 50,
    });
    let back: Promise<NatsServer> | undefined;
    const slowStart: typeof probeTool = {
      ...probeTool,
      // the server goes away during the tool's start, and comes back a moment later
      start: async () => {
        await first.stop();
        servers = servers.filter((s) => s !== first);
        back = new Promise((resolve) => setTimeout(resolve, 500)).then(() => natsOn(port));
      },
    };
    try {
      served = await serveTools([slowStart], { nc });
      await back;
      const reply = await waitFor(
        async () => {
          try {
            return (await rawDispatch(nc, 'probe', { text: 'after' })).reply;
          } catch {
            return undefined;
          }
        },
        'the probe to answer after the reconnect',
        30_000,
        100,
      );
      expect(reply).toMatchObject({ success: true, result: { echo: 'after' } });
    } finally {
      await served?.stop();
      served = undefined;
      await nc.close();
    }
  }, 60_000);
});
