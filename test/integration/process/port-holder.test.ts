import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { portHolder } from '../../../src/process/port-holder.js';

// `caesar up` names what holds a taken port (ADR 0071): the listening socket's inode in
// /proc/net/tcp{,6}, then the process whose descriptors hold it. This process listens itself.

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

function listen(host: string): Promise<number> {
  server = createServer();
  return new Promise((resolve) =>
    server!.listen(0, host, () => resolve((server!.address() as { port: number }).port)),
  );
}

describe('portHolder', () => {
  test.each(['127.0.0.1', '::1'])(
    'finds this process listening on %s, with its command line',
    async (host) => {
      const port = await listen(host);
      const holder = await portHolder(port);
      expect(holder?.pid).toBe(process.pid);
      expect(holder?.argv.length).toBeGreaterThan(0);
    },
  );

  test('a port nobody listens on has no holder', async () => {
    const port = await listen('127.0.0.1');
    server!.close();
    await new Promise((r) => server!.once('close', r));
    expect(await portHolder(port)).toBeUndefined();
  });
});
