import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectBus } from '../../../src/bus/index.js';
import { startNatsServer } from '../../../src/bus/launcher.js';
import { dispatchSubject } from '../../../src/protocol/index.js';
import { runCli } from '../../helpers/cli.js';
import { refusedSubscription } from '../../helpers/nats.js';

// Issue 14, scope 1: `caesar nats config` writes a config nats-server accepts, for one server
// and for a server of a cluster, from identities minted by `caesar legion identity new`.

/** `nats-server -t -c file`: nats-server's own check of a config file. */
function natsServerCheck(file: string): { status: number | null; output: string } {
  const PATH = [process.env.PATH ?? '', '/usr/sbin', '/usr/local/sbin'].join(delimiter);
  const r = spawnSync('nats-server', ['-t', '-c', file], { env: { ...process.env, PATH } });
  return { status: r.status, output: `${r.stdout.toString()}${r.stderr.toString()}` };
}

describe('caesar nats config', () => {
  let dir: string;
  const keys: Record<string, string> = {};
  const seeds: Record<string, string> = {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-nats-config-'));
    const roles: Record<string, string[]> = {
      brain: ['--brain'],
      calc: ['--tools', 'calculator'],
      operator: ['--operator'],
    };
    for (const [name, role] of Object.entries(roles)) {
      seeds[name] = join(dir, `${name}.nk`);
      const r = await runCli(['legion', 'identity', 'new', name, ...role, '--out', seeds[name]]);
      expect(r.code).toBe(0);
      keys[name] = /public key: (U\w+)/.exec(r.stdout)?.[1] ?? '';
    }
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('one server: nats-server accepts it, and each identity can do its part and no more', async () => {
    const file = join(dir, 'one.conf');
    const r = await runCli([
      'nats',
      'config',
      '--brain',
      seeds.brain!,
      '--worker',
      `calculator=${keys.calc}`,
      '--operator',
      keys.operator!,
      '--listen',
      '127.0.0.1:4222',
      '--out',
      file,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote ${file}; check it with: nats-server -t -c ${file}`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toMatch(/\bS[UA][A-Z2-7]{50,}/); // public keys only, never a seed
    expect(natsServerCheck(file)).toMatchObject({ status: 0 });

    const server = await startNatsServer({ port: 0, configFile: file });
    try {
      const brain = await connectBus({
        servers: server.url,
        auth: { kind: 'nkey', seedFile: seeds.brain! },
      });
      // its inbox and the dispatch subject are allowed: nobody serves, so no responders
      await expect(
        brain.request(dispatchSubject('calculator'), '{}', { timeout: 5000 }),
      ).rejects.toThrow(/no responders/i);
      await brain.close();
      const worker = await connectBus({
        servers: server.url,
        auth: { kind: 'nkey', seedFile: seeds.calc! },
      });
      const refused = await refusedSubscription(
        worker,
        dispatchSubject('web_search'),
        'caesar-tool',
      );
      expect(refused.message).toMatch(/permissions violation for subscription/i);
      await worker.close();
    } finally {
      await server.stop();
    }
  }, 60_000);

  test('a server of a cluster: the cluster block with its routes behind the secret file (made when missing), accepted by nats-server', async () => {
    const secret = join(dir, 'cluster.secret');
    const args = [
      'nats',
      'config',
      '--worker',
      `calculator,web_search=${seeds.calc}`,
      '--brain',
      keys.brain!,
      '--cluster',
      'caesar',
      '--cluster-listen',
      '0.0.0.0:6222',
      '--routes',
      'nats-route://nats-b.lan:6222,nats-route://nats-c.lan:6222',
      '--cluster-secret',
      secret,
    ];
    const r = await runCli(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^made .*cluster\.secret \(mode 0600\), the routes password \(user route-cluster\)/,
    );
    expect((await stat(secret)).mode & 0o777).toBe(0o600);
    const [user, password] = (await readFile(secret, 'utf8')).trim().split(':');
    expect(user).toBe('route-cluster');
    expect(r.stdout).toContain(
      `"routes": [\n    "nats-route://route-cluster:${password}@nats-b.lan:6222",`,
    );
    expect(r.stdout).toContain(`"user": "route-cluster",\n    "password": "${password}"`);
    expect(r.stdout).toContain('"caesar.dispatch.tool.web_search caesar-tool"');
    const file = join(dir, 'cluster.conf');
    await writeFile(file, r.stdout);
    expect(natsServerCheck(file)).toMatchObject({ status: 0 });
    // the next server reads the same file: the same password
    const again = await runCli(args);
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain(`route-cluster:${password}@nats-b.lan`);
  }, 30_000);

  test('a hub with a leaf user and a leaf server with its remote: both accepted by nats-server', async () => {
    const secret = join(dir, 'pi.leaf');
    const hub = join(dir, 'hub.conf');
    const r = await runCli([
      'nats',
      'config',
      '--brain',
      keys.brain!,
      '--leafnodes-listen',
      '0.0.0.0:7422',
      '--leaf',
      `calculator=${secret}`,
      '--out',
      hub,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`made ${secret} (mode 0600), the password of the leaf user leaf-pi`);
    expect(natsServerCheck(hub)).toMatchObject({ status: 0 });
    const hubText = await readFile(hub, 'utf8');
    expect(hubText).toContain('"allowed_connection_types": [\n        "LEAFNODE"\n      ]');
    const leaf = join(dir, 'leaf.conf');
    const l = await runCli([
      'nats',
      'config',
      '--worker',
      `calculator=${keys.calc}`,
      '--listen',
      '127.0.0.1:4222',
      '--leaf-remote',
      'nats-leaf://hub.lan:7422',
      '--leaf-secret',
      secret,
      '--out',
      leaf,
    ]);
    expect(l.code, l.stderr).toBe(0);
    expect(natsServerCheck(leaf)).toMatchObject({ status: 0 });
    const password = (await readFile(secret, 'utf8')).trim().split(':')[1];
    expect(await readFile(leaf, 'utf8')).toContain(
      `"url": "nats-leaf://leaf-pi:${password}@hub.lan:7422"`,
    );
  }, 30_000);

  test.each([
    [[], 'give at least one identity: --brain, --worker or --operator'],
    [
      ['--brain', 'UNOTAKEY'],
      '--brain UNOTAKEY: neither a user public key (U…) nor a readable seed file (ENOENT)',
    ],
    [['--worker', 'UABC'], '--worker UABC: expected <tools>=<key>, e.g. calculator=UA…'],
    [['--operator', 'x', '--routes', 'nats-route://a:6222'], '--operator x: neither'],
    [['--operator', 'UABC', '--cluster', 'c'], '--operator UABC: neither'],
  ])('a usage mistake exits 2 naming the flag: %j', async (args, message) => {
    const r = await runCli(['nats', 'config', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  test('--routes without --cluster, and one identity given twice, are refused', async () => {
    const routes = await runCli([
      'nats',
      'config',
      '--operator',
      keys.operator!,
      '--routes',
      'nats-route://a:6222',
    ]);
    expect(routes.code).toBe(2);
    expect(routes.stderr).toContain('--routes needs --cluster <name>');
    const twice = await runCli([
      'nats',
      'config',
      '--operator',
      keys.operator!,
      '--brain',
      seeds.operator!,
    ]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`the identity ${keys.operator} is given twice`);
  });

  test.each([
    [['--cluster', 'c'], '--cluster needs --cluster-secret <file>: without it anyone'],
    [['--cluster-secret', 'x.secret'], '--cluster-secret needs --cluster <name>'],
    [['--leaf', 'calculator=pi.leaf'], '--leaf needs --leafnodes-listen <host:port>'],
    [['--leaf-remote', 'nats-leaf://hub:7422'], '--leaf-remote and --leaf-secret go together'],
    [
      ['--leaf-remote', 'nats://hub:7422', '--leaf-secret', 'pi.leaf'],
      '--leaf-remote nats://hub:7422: expected nats-leaf://host:port',
    ],
    [
      ['--leaf-remote', 'nats-leaf://hub:7422', '--leaf-secret', 'missing.leaf'],
      '--leaf-secret missing.leaf: cannot read the secret file (ENOENT)',
    ],
  ])('cluster and leaf mistakes exit 2 naming the flag: %j', async (args, message) => {
    const r = await runCli(['nats', 'config', '--operator', keys.operator!, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
