import { createServer, type Server } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '../../../helpers/cli.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';

// Issue 15: a taken API port said only `listen EADDRINUSE`, while a taken NATS port says what
// to do. Now it names the port and the flag.

let dir: string;
let nats: TestNats;
let holder: Server;
let port: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-port-taken-'));
  await writeFile(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools: []\n');
  nats = await startNats();
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  port = (holder.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => holder?.close(resolve));
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('caesar brain on a taken API port exits 1 naming the port and --api-port 0', async () => {
  const run = await runCli([
    'brain',
    '--nats-url',
    nats.url,
    '--api-port',
    String(port),
    '--data-dir',
    join(dir, 'var'),
    '--policy',
    join(dir, 'policy.yaml'),
    '--log-level',
    'silent',
  ]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is taken`);
  expect(run.stderr).toContain('--api-port (0 = any free port');
  expect(run.stderr).not.toContain('EADDRINUSE');
}, 60_000);
