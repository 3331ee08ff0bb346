import { spawnSync } from 'node:child_process';
import { chown, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readNkeySeed } from '../../../../src/bus/index.js';
import { startNatsServer, type NatsServer } from '../../../../src/bus/launcher.js';
import { runCli, startCli, type RunAs, type RunningCli } from '../../../helpers/cli.js';
import {
  commandOf,
  envOf,
  loadCompose,
  secretsOf,
  type ComposeFile,
  type ComposeService,
} from '../../../helpers/compose.js';
import { closedPort } from '../../../helpers/ports.js';
import { expectCalculatorWorkerContained } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';

// Issue 14, scope 5: the one-time setup of docs/operations.md ("Containers") runs for real,
// in a temp directory standing in for the checkout, as the uid the containers run as. Then
// docker-compose.yml, read with the .env it wrote, and the server config it wrote must
// agree; and nats-server, the brain, the calculator worker and the operator CLI, started
// with the environment compose gives them, must work together. What a test cannot have is
// moved: /work and /app to temp directories, nats:4222 and the monitoring port to loopback.

const DOC = new URL('../../../../docs/operations.md', import.meta.url);
const ROOT = new URL('../../../../', import.meta.url).pathname;
/** Where the image mounts the checkout in the setup command, and its WORKDIR. */
const WORK = '/work';
const APP = '/app';

/** The setup's `caesar` arguments: the `docker run … caesar:local …` line of the docs. */
async function setupCommand(): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  const section = text.slice(text.indexOf('## Containers'), text.indexOf('## Secrets from files'));
  const line = /^docker run --rm -v "\$PWD:\/work" caesar:local (.+)$/m.exec(section)?.[1];
  if (line === undefined) throw new Error('docs/operations.md, Containers: no setup command');
  return line.split(/\s+/);
}

/** `nats-server -t -c file`: nats-server's own check of a config file. */
function natsServerCheck(file: string): { status: number | null; output: string } {
  const PATH = [process.env.PATH ?? '', '/usr/sbin', '/usr/local/sbin'].join(delimiter);
  const r = spawnSync('nats-server', ['-t', '-c', file], { env: { ...process.env, PATH } });
  return { status: r.status, output: `${r.stdout.toString()}${r.stderr.toString()}` };
}

interface User {
  nkey?: string;
  permissions?: unknown;
}

/** The generated config's users and plain settings (it writes its blocks as JSON). */
function parseServerConfig(text: string) {
  const auth = /^authorization: (\{[\s\S]*?\n\})$/m.exec(text)?.[1];
  if (auth === undefined) throw new Error(`no authorization block in:\n${text}`);
  const setting = (name: string) =>
    (JSON.parse(new RegExp(`^${name}: (.+)$`, 'm').exec(text)?.[1] ?? 'null') as string | null) ??
    undefined;
  const authorization = JSON.parse(auth) as Record<string, unknown> & { users: User[] };
  return { authorization, listen: setting('listen'), http: setting('http') };
}

/** .env as compose reads it: NAME=value lines. */
function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => /^([A-Za-z_]\w*)=(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

describe('docker-compose.yml with the NKEY identities its one-time setup writes', () => {
  let dir: string;
  let compose: ComposeFile;
  let dotenv: Record<string, string>;
  let config: ReturnType<typeof parseServerConfig>;
  /** The public key of each secret compose declares, read from the file it names. */
  const keyOf = new Map<string, string>();
  // Root ignores file modes: run as the image's default CAESAR_UID, as `docker run` would.
  const runAs: RunAs = process.getuid?.() === 0 ? { uid: 1000, gid: 1000 } : {};
  const secretFile = (secret: string) =>
    join(dir, compose.secrets![secret]!.file!.replace(/^\.\//, ''));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-compose-'));
    if (runAs.uid !== undefined) await chown(dir, runAs.uid, runAs.gid!);
    const args = (await setupCommand()).map((a) => (a === WORK ? dir : a));
    const r = await runCli(args, {}, runAs);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    dotenv = parseEnv(await readFile(join(dir, '.env'), 'utf8'));
    compose = loadCompose(dotenv);
    config = parseServerConfig(await readFile(join(dir, 'secrets/nats-server.conf'), 'utf8'));
    for (const secret of Object.keys(compose.secrets ?? {})) {
      if (!secret.endsWith('_nkey')) continue;
      keyOf.set(secret, (await readNkeySeed(secretFile(secret))).publicKey);
    }
  }, 30_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const caesarServices = () =>
    Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
  const nkeySecretOf = (s: ComposeService) => secretsOf(s).filter((n) => n.endsWith('_nkey'));

  test('.env builds the image for the uid that owns the seeds, each mode 0600', async () => {
    const uid = runAs.uid ?? process.getuid!();
    expect(dotenv).toMatchObject({ CAESAR_UID: String(uid) });
    expect(keyOf.size).toBe(Object.keys(compose.secrets!).length);
    for (const secret of keyOf.keys()) {
      const s = await stat(secretFile(secret));
      expect({ secret, mode: (s.mode & 0o777).toString(8), uid: s.uid }).toEqual({
        secret,
        mode: '600',
        uid,
      });
    }
  });

  test('the server has exactly one NKEY user per secret, and nothing else lets a client in', () => {
    const { users, ...rest } = config.authorization;
    expect(rest).toEqual({});
    expect(users.map((u) => u.nkey).sort()).toEqual([...keyOf.values()].sort());
    for (const user of users) {
      expect(Object.keys(user).filter((k) => k !== 'nkey' && k !== 'permissions')).toEqual([]);
    }
  });

  test('every CAESAR service gets only its own seed, whose user has its role’s permissions', async () => {
    const used = new Map<string, string>();
    for (const [name, service] of caesarServices()) {
      const [secret, ...more] = nkeySecretOf(service);
      expect({ name, more }).toEqual({ name, more: [] });
      expect(used.get(secret!), `${secret} is given to two services`).toBeUndefined();
      used.set(secret!, name);
      const key = keyOf.get(secret!);
      const user = config.authorization.users.find((u) => u.nkey === key);
      const argv = commandOf(name, service);
      if (argv[0] === 'legion' && argv[1] === 'serve-tool') {
        const printed = await runCli(['legion', 'permissions', ...argv.slice(2)]);
        expect(user?.permissions, name).toEqual(JSON.parse(printed.stdout));
      } else if (argv[0] === 'brain') {
        const printed = await runCli(['legion', 'permissions', '--brain', key!]);
        expect(user?.permissions, name).toEqual(JSON.parse(printed.stdout));
      } else {
        expect(name).toBe('operator');
        expect(user?.permissions).toBeUndefined(); // unrestricted, and never started by `up`
        expect(service.profiles).toEqual(['operator']);
      }
    }
    expect([...used.keys()].sort()).toEqual([...keyOf.keys()].sort());
  }, 20_000);

  test("workers trust the brain seed's public key, and keep grants on", () => {
    const brainKey = keyOf.get(nkeySecretOf(compose.services.brain!)[0]!);
    expect(dotenv.CAESAR_BRAIN_KEY).toBe(brainKey);
    for (const [name, service] of caesarServices()) {
      const env = envOf(service);
      expect(env.CAESAR_WORKER__REQUIRE_GRANT, name).toBeUndefined();
      if (commandOf(name, service)[1] !== 'serve-tool') continue;
      expect(env.CAESAR_WORKER__TRUSTED_BRAINS, name).toBe(brainKey);
    }
  });

  test("the brain takes replies only from each worker seed's public key, pinned per tool", () => {
    const pinned: string[] = [];
    for (const [name, service] of caesarServices()) {
      const argv = commandOf(name, service);
      if (argv[0] !== 'legion' || argv[1] !== 'serve-tool') continue;
      for (const tool of argv.slice(2).filter((a) => !a.startsWith('-'))) {
        pinned.push(`${tool}=${keyOf.get(nkeySecretOf(service)[0]!)!}`);
      }
    }
    expect(pinned.length).toBeGreaterThan(0);
    const brainEnv = envOf(compose.services.brain!);
    expect(dotenv.CAESAR_WORKER_KEYS?.split(',').sort()).toEqual(pinned.sort());
    expect(brainEnv.CAESAR_BRAIN__TRUSTED_WORKERS).toBe(dotenv.CAESAR_WORKER_KEYS);
  });

  test('nats runs this config, listens where the services connect, and its healthcheck probes its monitor', () => {
    const nats = compose.services.nats!;
    expect(nats.volumes).toEqual(['./secrets/nats-server.conf:/etc/nats/nats-server.conf:ro']);
    for (const [, service] of caesarServices()) {
      const url = new URL(envOf(service).CAESAR_BUS__URL!);
      expect(url.hostname).toBe('nats');
      expect(config.listen).toBe(`0.0.0.0:${url.port}`);
    }
    expect(JSON.stringify(nats.healthcheck?.test)).toContain(`http://${config.http}/healthz`);
    expect(config.http).toMatch(/^127\.0\.0\.1:/);
    const check = natsServerCheck(join(dir, 'secrets/nats-server.conf'));
    expect(check, check.output).toMatchObject({ status: 0 });
  });

  describe('run as compose runs it', () => {
    let server: NatsServer | undefined;
    let url: string;
    let monitor: number;
    const running: RunningCli[] = [];
    const app = () => join(dir, 'app');

    /** A service's environment and command, with compose's places moved here. */
    function asCompose(name: string, overrides: Record<string, string> = {}) {
      const service = compose.services[name]!;
      const [secret] = nkeySecretOf(service);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(envOf(service))) {
        env[k] = v
          .replace('nats://nats:4222', url)
          .replace(`/run/secrets/${secret}`, secretFile(secret!));
      }
      const args = commandOf(name, service).map((a) => a.replace(`${APP}/`, `${app()}/`));
      return { args, env: { ...env, ...overrides } };
    }

    beforeAll(async () => {
      const [port, monitorPort] = [await closedPort(), await closedPort()];
      url = `nats://127.0.0.1:${port}`;
      monitor = monitorPort;
      const conf = join(dir, 'nats-server.loopback.conf');
      const text = await readFile(join(dir, 'secrets/nats-server.conf'), 'utf8');
      await writeFile(
        conf,
        text
          .replace(`listen: "${config.listen}"`, `listen: "127.0.0.1:${port}"`)
          .replace(`http: "${config.http}"`, `http: "127.0.0.1:${monitor}"`),
      );
      server = await startNatsServer({ port, configFile: conf });
      // /app as the image has it: the policy directory, and var owned by CAESAR_UID
      await mkdir(join(app(), 'var'), { recursive: true });
      await cp(join(ROOT, 'policy'), join(app(), 'policy'), { recursive: true });
      if (runAs.uid !== undefined) await chown(join(app(), 'var'), runAs.uid, runAs.gid!);
    }, 20_000);

    afterAll(async () => {
      for (const p of running) p.child.kill('SIGTERM');
      await Promise.all(running.map((p) => p.exited));
      await server?.stop();
    }, 30_000);

    test('the healthcheck answers without credentials; a client without a seed is refused', async () => {
      const res = await fetch(`http://127.0.0.1:${monitor}/healthz`);
      expect(res.status).toBe(200);
      await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/authorization/i);
    });

    test('brain and calculator worker with their compose environment: chat works under grants', async () => {
      const worker = asCompose('calculator', { CAESAR_TOOLS__CALCULATOR__WARM_THREADS: '1' });
      const calculator = startCli(worker.args, worker.env, { ...runAs, cwd: app() });
      running.push(calculator);
      // loopback and a free port here; in its container, 0.0.0.0:8420 behind the host's loopback
      const b = asCompose('brain', { CAESAR_API__HOST: '127.0.0.1', CAESAR_API__PORT: '0' });
      const brain = startCli(b.args, b.env, { ...runAs, cwd: app() });
      running.push(brain);
      await brain.waitForLine(/^brain ready: /, 15_000);
      const reply = await waitFor(
        async () => {
          const r = await runCli(['chat', 'what is 17 * 23'], {}, { ...runAs, cwd: app() });
          return r.code === 0 && r.stdout.includes('17 * 23 = 391') ? r.stdout : undefined;
        },
        'the chat to answer through the calculator worker',
        15_000,
        200,
      );
      expect(reply).toContain('17 * 23 = 391');
      expect(calculator.stderr()).toContain('dispatch grants required');
      expect(calculator.stderr()).not.toContain('grant rejected');

      const op = asCompose('operator');
      const list = await runCli(op.args, op.env, { ...runAs, cwd: app() });
      expect({ code: list.code, stderr: list.stderr }).toMatchObject({ code: 0 });
      expect(list.stdout).toContain('calculator');

      await expectCalculatorWorkerContained(url, secretFile('calculator_nkey'));
    }, 40_000);
  });
});
