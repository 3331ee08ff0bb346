import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/ports.js';

// Issue 15: `caesar legion list` with no stack running said only "connection refused".

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-list-no-stack-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('legion list with no stack in the data dir says so and how to start or find one', async () => {
  // a config whose server is not there stands in for the default URL with nothing on it
  await writeFile(
    join(dir, 'caesar.yaml'),
    `bus:\n  url: nats://127.0.0.1:${await closedPort()}\n`,
  );
  const run = await runCli([
    'legion',
    'list',
    '--config',
    join(dir, 'caesar.yaml'),
    '--data-dir',
    join(dir, 'var'),
  ]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('connection refused');
  expect(run.stderr).toContain(`no runtime.json in ${join(dir, 'var')}`);
  expect(run.stderr).toContain('Start the stack with `caesar up`');
  expect(run.stderr).toContain('--nats-url');
}, 60_000);

test('with --nats-url given, the refusal is not blamed on a missing stack', async () => {
  const url = `nats://127.0.0.1:${await closedPort()}`;
  const run = await runCli(['legion', 'list', '--nats-url', url, '--data-dir', join(dir, 'var')]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('connection refused');
  expect(run.stderr).not.toContain('caesar up');
}, 60_000);
