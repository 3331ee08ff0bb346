import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.js';

// Issue 29, point 1: `caesar up` beside a running stack failed on the NATS port, then (with
// --nats-port 0) on the API port after every worker had started. It now checks both ports
// before it starts anything (src/cli/stack/port-check.ts), names what holds a taken one (a
// CAESAR stack: its data dir and API URL, found through /proc), and the exact command for a
// second stack beside the first; in a data dir whose stack runs, it says to use that one.
// The ports are taken by real listeners: a plain TCP server, and a running stack.
// docs/operations.md ("A second stack beside the first") shows both messages.

let root: string;
let first: RunningCli | undefined;
let firstDir: string;
let runtime: { api_url: string; nats_url: string; pid: number };
let listener: Server | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'caesar-up-ports-'));
  firstDir = join(root, 'first');
  await mkdir(firstDir);
  first = startCli(
    ['up', '--tools', 'calculator', '--nats-port', '0', '--api-port', '0'],
    {},
    {
      cwd: firstDir,
    },
  );
  await first.waitForLine(/^ready: /, 90_000);
  runtime = JSON.parse(
    await readFile(join(firstDir, 'var/runtime.json'), 'utf8'),
  ) as typeof runtime;
}, 120_000);

afterAll(async () => {
  listener?.close();
  if (first && first.child.exitCode === null) {
    first.child.kill('SIGINT');
    await first.exited;
  }
  await rm(root, { recursive: true, force: true });
}, 30_000);

const portOf = (url: string) => Number(new URL(url).port);

/** `caesar up` in a new directory of `root`, with `args`; it must exit at once. */
async function upBeside(name: string, args: string[]) {
  const cwd = join(root, name);
  await mkdir(cwd);
  const r = await runCli(['up', '--tools', 'calculator', ...args], {}, { cwd });
  return { ...r, cwd };
}

/** Nothing started: no status line of nats-server, the brain or a worker, no seeded policy. */
async function nothingStarted(r: { stdout: string; cwd: string }): Promise<void> {
  expect(r.stdout).not.toMatch(/^(nats-server|brain|calculator|policy) /m);
  await expect(stat(join(r.cwd, 'var/policy.yaml'))).rejects.toThrow(/ENOENT/);
  await expect(stat(join(r.cwd, 'var/nkeys'))).rejects.toThrow(/ENOENT/);
}

describe('caesar up where a port is taken', () => {
  test('the API port of a running stack: fails before any worker starts, names the stack and the command for a second one', async () => {
    const api = portOf(runtime.api_url);
    const r = await upBeside('api', ['--nats-port', '0', '--api-port', String(api)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the API port ${api} on 127.0.0.1 is taken by the CAESAR stack in ${firstDir}/var`,
    );
    expect(r.stderr).toContain(`API ${runtime.api_url}`);
    expect(r.stderr).toContain('nothing was started');
    expect(r.stderr).toContain(
      `Use that stack (run commands where it started, or pass --data-dir ${firstDir}/var), stop it,`,
    );
    expect(r.stderr).toMatch(
      /start a second stack beside it: `caesar up --nats-port 0 --api-port \d+`/,
    );
    const suggested = Number(/--api-port (\d+)`/.exec(r.stderr)![1]);
    expect(suggested).toBeGreaterThan(api);
    await nothingStarted(r);
  });

  test('the NATS port of a running stack: names the stack, found through its nats-server', async () => {
    const nats = portOf(runtime.nats_url);
    const r = await upBeside('nats', ['--nats-port', String(nats), '--api-port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the NATS port ${nats} on 127.0.0.1 is taken by the CAESAR stack in ${firstDir}/var`,
    );
    expect(r.stderr).toMatch(/`caesar up --nats-port \d+ --api-port 0`/);
    await nothingStarted(r);
  });

  test('a port held by another program: names its pid', async () => {
    listener = createServer();
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    const r = await upBeside('other', ['--nats-port', '0', '--api-port', String(port)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the API port ${port} on 127.0.0.1 is taken by node (pid ${process.pid})`,
    );
    expect(r.stderr).toContain(
      'Stop what holds the port, or start a second stack beside it: `caesar up',
    );
    await nothingStarted(r);
  });

  test('the data dir of a running stack: says to use it, and how to run a second one', async () => {
    const r = await runCli(
      ['up', '--tools', 'calculator', '--nats-port', '0', '--api-port', '0'],
      {},
      {
        cwd: firstDir,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `CAESAR is already running with data dir ${firstDir}/var (pid ${runtime.pid}, API ${runtime.api_url}`,
    );
    expect(r.stderr).toContain('; use it:');
    expect(r.stderr).toContain('`caesar up --data-dir ./var2 --nats-port 0 --api-port 0`');
    // the first stack runs on, its runtime.json untouched
    expect(first!.child.exitCode).toBeNull();
    expect(JSON.parse(await readFile(join(firstDir, 'var/runtime.json'), 'utf8'))).toMatchObject({
      pid: runtime.pid,
    });
  });
});
