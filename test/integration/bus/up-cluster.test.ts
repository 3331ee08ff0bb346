import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { connectBus, readNkeySeed, startNatsServer } from '../../../src/bus/index.js';
import { GrantSigner } from '../../../src/protocol/grant.js';
import { alive, runCli, startCli, type RunningCli } from '../../helpers/cli.js';
import { rawDispatch } from '../../helpers/dispatch.js';
import { natsServerPid } from '../../helpers/nats.js';
import { firstToken } from '../../helpers/tokens.js';
import { waitFor } from '../../helpers/wait.js';

// Issue 14, scope 3: `caesar up --cluster 3` runs three routed nats-servers on loopback, each
// kept alive by its own keeper; the brain, the workers and the CLI get the whole URL list.
// docs/operations.md's `caesar up --cluster 3` is this command (with ports and a data dir a
// test can own).

let dir: string;
let up: RunningCli | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-up-cluster-'));
});
afterEach(async () => {
  if (up && up.child.exitCode === null) up.child.kill('SIGKILL');
  up = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The addresses (hex, as /proc/net/tcp{,6} writes them) listening on `port`. */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A')
      .map((f) => f[1]!.split(':')[0]!),
  );
}

interface Node {
  url: string;
  pid: number;
  routePort: number;
}

test('caesar up --cluster 3: three routed servers on loopback, the URL list in runtime.json, each server killed in turn comes back and calls keep working', async () => {
  up = startCli(
    [
      'up',
      '--cluster',
      '3',
      '--nats-port',
      '0',
      '--api-port',
      '0',
      '--tools',
      'calculator',
      '--data-dir',
      dir,
    ],
    { CAESAR_LOG__LEVEL: 'warn' },
  );
  await up.waitForLine(/^ready: /, 60_000);
  const nodes: Node[] = [
    ...up.lines
      .join('\n')
      .matchAll(
        /^nats-server (\d) (nats:\/\/\S+)\s+\(pid (\d+), routes on port (\d+), loopback only/gm,
      ),
  ].map((m) => ({ url: m[2]!, pid: Number(m[3]), routePort: Number(m[4]) }));
  expect(nodes).toHaveLength(3);

  // the list goes to runtime.json, so CLI commands and `legion serve-tool` find every server
  const runtime = JSON.parse(await readFile(join(dir, 'runtime.json'), 'utf8')) as {
    nats_url: string;
    nats_seed_file: string;
    api_url: string;
    token_file: string;
  };
  expect(runtime.nats_url).toBe(nodes.map((n) => n.url).join(','));
  const list = startCli(['legion', 'list', '--data-dir', dir]);
  expect(await list.closed).toMatchObject({ code: 0 });
  expect(list.lines.join('\n')).toMatch(/^calculator\s+\S+\s+1\s/m);

  // nothing listens beyond loopback: the client ports, nor the route ports
  for (const n of nodes) {
    for (const port of [Number(new URL(n.url).port), n.routePort]) {
      expect(listeners(port), `port ${port}`).toEqual(['0100007F']);
    }
  }

  // a server that knows the route port but not the run's password cannot join the cluster
  const rogueConf = join(dir, 'rogue.conf');
  await writeFile(
    rogueConf,
    `cluster { name: caesar, listen: "127.0.0.1:-1", routes: ["nats-route://127.0.0.1:${nodes[0]!.routePort}"] }\n`,
  );
  {
    await using rogue = await startNatsServer({ configFile: rogueConf, cluster: true });
    await waitFor(() => /authorization violation/i.test(rogue.output()), 'the route refused');
  }

  const token = await firstToken(runtime.token_file);
  const invoke = async (expression: string) => {
    const res = await fetch(`${runtime.api_url}/v1/tools/calculator/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { expression } }),
    });
    return (await res.json()) as { outcome: string; result?: unknown };
  };
  expect(await invoke('6 * 7')).toMatchObject({ outcome: 'ok', result: { value: 42 } });

  // kill -9 each server in turn: the brain and the worker were on one of them each
  const killed: number[] = [];
  for (const [i, n] of nodes.entries()) {
    const pid = natsServerPid(n.pid);
    killed.push(pid);
    process.kill(pid, 'SIGKILL');
    const port = new URL(n.url).port;
    await up.waitForLine(
      new RegExp(`^nats-server ${i + 1} exited \\(SIGKILL\\); restarting on port ${port}`),
      15_000,
    );
    await up.waitForLine(new RegExp(`^nats-server ${i + 1} ${n.url}\\s+\\(pid \\d+\\) restarted`));
    const back = await waitFor(
      async () => {
        const r = await invoke(`${i} + 1`);
        return r.outcome === 'ok' ? r : undefined;
      },
      `a call to work after server ${i + 1} was killed`,
      30_000,
      150,
    );
    expect(back.result).toMatchObject({ value: i + 1 });
  }
  expect(killed.filter(alive)).toEqual([]);

  // every restarted server rejoined the cluster: a call sent through each one alone is answered
  // (signed with the brain's key: the worker runs nothing else, ADR 0052)
  const signer = new GrantSigner((await readNkeySeed(join(dir, 'nkeys', 'brain.nk'))).seed);
  for (const n of nodes) {
    const nc = await connectBus({
      servers: n.url,
      auth: { kind: 'nkey', seedFile: runtime.nats_seed_file },
    });
    try {
      const { reply } = await waitFor(async () => {
        // no responders (the route not up yet) rejects the request: try again
        const r = await rawDispatch(nc, 'calculator', { expression: '2 * 21' }, { signer }).catch(
          () => undefined,
        );
        return r?.reply.success ? r : undefined;
      }, `a call through ${n.url}`);
      expect(reply).toMatchObject({ success: true, result: { value: 42 } });
    } finally {
      await nc.close();
    }
  }

  up.child.kill('SIGINT');
  expect(await up.exited).toEqual({ code: 0, signal: null });
}, 120_000);

test.each([
  [['--cluster', '1'], '--cluster 1: expected a number of servers from 2 to 7, e.g. --cluster 3'],
  [['--cluster', 'three'], '--cluster three: expected a number of servers from 2 to 7'],
  [['--cluster', '3', '--config', 'own.yaml'], 'but embedded.nats_config names your own'],
])('caesar up %j is refused before anything starts, naming the flag', async (args, message) => {
  await writeFile(join(dir, 'own.yaml'), 'embedded:\n  nats_config: own-nats.conf\n');
  const r = await runCli(['up', ...args, '--data-dir', dir], {}, { cwd: dir });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(message);
  await expect(readFile(join(dir, 'runtime.json'))).rejects.toThrow(/ENOENT/);
});
