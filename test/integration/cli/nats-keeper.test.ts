import { createServer, type Server } from 'node:net';
import { describe, expect, test } from 'vitest';
import { startNatsServer, type NatsExit, type NatsServer } from '../../../src/bus/launcher.js';
import { NatsKeeper } from '../../../src/cli/stack/nats-keeper.js';
import { isAlive } from '../../../src/process/process-tree.js';
import { waitFor, within } from '../../helpers/wait.js';

/** Records what the keeper reports, in order. */
function recorder() {
  const events: (
    | { type: 'exit'; exit: NatsExit; delayMs: number }
    | { type: 'restarted'; server: NatsServer }
    | { type: 'failed'; err: Error; delayMs: number }
  )[] = [];
  return {
    events,
    onExit: (exit: NatsExit, delayMs: number) => events.push({ type: 'exit', exit, delayMs }),
    onRestarted: (server: NatsServer) => events.push({ type: 'restarted', server }),
    onRestartFailed: (err: Error, delayMs: number) => events.push({ type: 'failed', err, delayMs }),
  };
}

function listen(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** The nats-server's own pid; the launcher reads it from the server's log prefix. */
function serverPid(server: NatsServer): number {
  expect(server.serverPid).toBeGreaterThan(0);
  return server.serverPid!;
}

describe('NatsKeeper', () => {
  test('a port taken while nats-server is down is reported, retried with backoff, and the server comes back once it is free', async () => {
    const first = await startNatsServer();
    const { host, port } = first;
    const seen = recorder();
    let blocker: Server | undefined;
    let blocked: Promise<Server> | undefined;
    const keeper = new NatsKeeper(first, {
      backoffMs: 300,
      maxBackoffMs: 1000,
      // the first try waits until the port is taken, whatever the machine's load
      restart: async () => {
        blocker ??= await blocked;
        return startNatsServer({ host, port });
      },
      ...seen,
      // someone else takes the port in the gap, before the first restart
      onExit: (exit, delayMs) => {
        seen.onExit(exit, delayMs);
        blocked = listen(port, host);
      },
    });
    try {
      process.kill(serverPid(first), 'SIGKILL');
      await waitFor(
        () => seen.events.filter((e) => e.type === 'failed').length >= 2,
        'two failed restarts',
        20_000,
      );
      expect(seen.events[0]).toMatchObject({
        type: 'exit',
        exit: { signal: 'SIGKILL' },
        delayMs: 300,
      });
      const failed = seen.events.filter((e) => e.type === 'failed');
      for (const f of failed) expect(f.err.message).toMatch(/address already in use/);
      // backoff grows per failure, up to the cap
      expect(failed.map((f) => f.delayMs)).toEqual([600, 1000]);

      await new Promise<void>((resolve) => blocker!.close(() => resolve()));
      const back = await waitFor(
        () => seen.events.find((e) => e.type === 'restarted'),
        'the restart once the port is free',
        20_000,
      );
      expect(back.type === 'restarted' && back.server.port).toBe(port);
      expect(keeper.server).not.toBe(first);
    } finally {
      await keeper.stop();
      blocker?.close();
    }
    // stopped for good: a stop ends the keeper's watch, nothing restarts it
    const last = keeper.server;
    await last.exited;
    expect(seen.events.filter((e) => e.type === 'exit')).toHaveLength(1);
  }, 60_000);

  test('stop() during the restart delay stops for good, without starting another server', async () => {
    const first = await startNatsServer();
    const seen = recorder();
    const starts: NatsServer[] = [];
    const keeper = new NatsKeeper(first, {
      backoffMs: 60_000,
      restart: async () => {
        const s = await startNatsServer({ port: first.port });
        starts.push(s);
        return s;
      },
      ...seen,
    });
    process.kill(serverPid(first), 'SIGKILL');
    await waitFor(() => seen.events.length === 1, 'the exit to be reported');
    await keeper.stop();
    expect(starts).toHaveLength(0);
  });
});

describe('NatsKeeper: a server that stops answering (issue 28, ADR 0070)', () => {
  test('a frozen nats-server is killed once it has greeted no connection for the timeout, and restarted', async () => {
    const first = await startNatsServer();
    const frozen = serverPid(first);
    const kills: string[] = [];
    const exits: { exit: NatsExit; killed: unknown }[] = [];
    let restarted: (server: NatsServer) => void = () => {};
    const back = new Promise<NatsServer>((resolve) => (restarted = resolve));
    const keeper = new NatsKeeper(first, {
      backoffMs: 50,
      answerTimeoutMs: 2000,
      restart: () => startNatsServer({ host: first.host, port: first.port }),
      onKill: (_server, detail) => kills.push(detail),
      onExit: (exit, _delayMs, killed) => exits.push({ exit, killed }),
      onRestarted: (server) => restarted(server),
    });
    try {
      // SIGSTOP: the process lives, holds its port, and answers nothing, as a wedged server
      process.kill(frozen, 'SIGSTOP');
      const server = await within(back, 'the frozen server to be replaced', 30_000);
      expect(kills).toHaveLength(1);
      expect(kills[0]).toMatch(/^did not answer a connection for \d+\.\d s$/);
      const silentS = Number(/for (\d+\.\d) s/.exec(kills[0]!)![1]);
      expect(silentS).toBeGreaterThanOrEqual(2);
      expect(silentS).toBeLessThanOrEqual(3.1);
      expect(exits).toEqual([
        {
          exit: expect.objectContaining({ signal: 'SIGKILL' }),
          killed: { reason: 'unresponsive', detail: kills[0] },
        },
      ]);
      expect(isAlive(frozen)).toBe(false);
      expect(server.port).toBe(first.port);
      expect(serverPid(server)).not.toBe(frozen);
    } finally {
      await keeper.stop();
    }
  }, 60_000);
});
