import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { Command } from 'commander';
import { beforeAll, describe, expect, test } from 'vitest';
import { createUser } from '@nats-io/nkeys';
import { buildProgram } from '../../../../src/cli/program/program.js';
import { loadConfig, type CaesarConfig } from '../../../../src/config/index.js';
import { envTarget } from '../../../../src/config/env.js';
import { defaultToolNames } from '../../../../workers/index.js';
import {
  commandOf,
  envOf,
  loadCompose,
  secretsOf,
  type ComposeService,
} from '../../../helpers/compose.js';

const root = join(import.meta.dirname, '../../../../');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

type Service = ComposeService;

// The variables the one-time setup writes to .env; test/integration/cli/commands/compose-auth.test.ts
// runs the setup itself.
const brainKey = createUser().getPublicKey();
const workerKeys = defaultToolNames()
  .map((tool) => `${tool}=${createUser().getPublicKey()}`)
  .join(',');
const compose = loadCompose({
  CAESAR_BRAIN_KEY: brainKey,
  CAESAR_WORKER_KEYS: workerKeys,
  CAESAR_UID: '1000',
  CAESAR_GID: '1000',
});
const dockerfile = read('Dockerfile');

/** The last value of a Dockerfile instruction (the runtime stage's). */
function instruction(name: string): string {
  const lines = dockerfile.split('\n').filter((l) => l.startsWith(`${name} `));
  const last = lines.at(-1);
  if (last === undefined) throw new Error(`Dockerfile has no ${name}`);
  return last.slice(name.length + 1).trim();
}

const workdir = instruction('WORKDIR');

/** Services that run the CAESAR image (built from this repo's Dockerfile). */
const caesarServices = Object.entries(compose.services).filter(
  ([, s]) => s.build !== undefined || s.image?.startsWith('caesar') === true,
);
/** Those `docker compose up` starts (a service with profiles runs only when asked for). */
const upServices = caesarServices.filter(([, s]) => s.profiles === undefined);

/** Follows `argv` down the command tree as far as subcommand names match. */
function resolveCommand(program: Command, argv: readonly string[]) {
  let cmd = program;
  let i = 0;
  for (; i < argv.length; i++) {
    const sub = cmd.commands.find((c) => c.name() === argv[i] || c.aliases().includes(argv[i]!));
    if (sub === undefined) break;
    cmd = sub;
  }
  return { cmd, path: argv.slice(0, i), rest: argv.slice(i) };
}

/** Splits `rest` into `--flag value` pairs and operands, failing on an unknown flag. */
function parseArgs(where: string, cmd: Command, rest: readonly string[]) {
  const flags = new Map<string, string | true>();
  const operands: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (!arg.startsWith('-')) {
      operands.push(arg);
      continue;
    }
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const option = cmd.options.find((o) => o.long === name || o.short === name);
    if (option === undefined) {
      const known = cmd.options.map((o) => o.long).join(', ');
      throw new Error(`${where}: \`${cmd.name()}\` has no option ${name} (it has: ${known})`);
    }
    const takesValue = option.required || option.optional;
    flags.set(option.long ?? name, takesValue ? (inline ?? rest[++i] ?? '') : true);
  }
  return { flags, operands };
}

/** The config each CAESAR service runs with: its env (files left out) and its flags. */
async function serviceConfig(service: Service, flags: Map<string, string | true>) {
  const env = Object.fromEntries(
    Object.entries(envOf(service)).filter(([name]) => {
      const target = envTarget(name);
      return !('fromFile' in target && target.fromFile);
    }),
  );
  const dataDir = flags.get('--data-dir');
  const policy = flags.get('--policy');
  return loadConfig({
    env,
    cwd: workdir,
    overrides: {
      ...(typeof dataDir === 'string' ? { data_dir: dataDir } : {}),
      ...(typeof policy === 'string' ? { policy: { file: policy } } : {}),
    },
  });
}

describe('docker-compose.yml', () => {
  let program: Command;
  beforeAll(() => {
    program = buildProgram();
  });

  test('up runs the brain and one service per shipped tool worker', () => {
    const names = upServices.map(([name]) => name).sort();
    expect(names).toEqual(['brain', ...defaultToolNames()].sort());
  });

  test('the operator CLI runs only on demand (a profile), never restarted', () => {
    const operator = compose.services.operator;
    expect(operator?.profiles).toEqual(['operator']);
    expect(operator).toMatchObject({ restart: 'no' });
  });

  test('without the one-time setup (.env), compose refuses to start and names the setup', () => {
    expect(() => loadCompose({})).toThrow(
      /CAESAR_BRAIN_KEY is missing a value: .*one-time setup at the top of docker-compose\.yml/,
    );
  });

  test('every CAESAR service connects with an NKEY seed of its own, given as a Docker secret', () => {
    const given = caesarServices.flatMap(([, s]) =>
      secretsOf(s).filter((n) => n.endsWith('_nkey')),
    );
    expect(given.length, 'an NKEY secret given to two services').toBe(new Set(given).size);
    for (const [name, service] of caesarServices) {
      const [secret, ...more] = secretsOf(service).filter((s) => s.endsWith('_nkey'));
      expect(more, `service ${name} gets one NKEY`).toEqual([]);
      expect(envOf(service).CAESAR_BUS__NKEY_SEED_FILE, name).toBe(`/run/secrets/${secret}`);
      expect(compose.secrets?.[secret!]?.file, name).toMatch(/^\.\/secrets\/\w+\.nk$/);
    }
  });

  test('workers trust the brain key from .env and do not turn grants off', () => {
    for (const [name, service] of caesarServices) {
      const env = envOf(service);
      expect(env.CAESAR_WORKER__REQUIRE_GRANT, name).toBeUndefined();
      if (commandOf(name, service)[0] !== 'legion' || commandOf(name, service)[1] !== 'serve-tool')
        continue;
      expect(env.CAESAR_WORKER__TRUSTED_BRAINS, name).toBe(brainKey);
    }
  });

  test.each(caesarServices)(
    'service %s runs an existing caesar command with existing flags',
    (name, service) => {
      expect(service.entrypoint, `${name} must use the image's ENTRYPOINT`).toBeUndefined();
      const argv = commandOf(name, service);
      const { cmd, path, rest } = resolveCommand(program, argv);
      if (path.length === 0 || cmd.commands.length > 0) {
        const have = (cmd.commands.length > 0 ? cmd : program).commands.map((c) => c.name());
        throw new Error(
          `service ${name}: \`caesar ${argv.join(' ')}\` is not a command buildProgram() has ` +
            `(under \`caesar ${path.join(' ')}\` there is: ${have.join(', ')})`,
        );
      }
      const { operands } = parseArgs(`service ${name}`, cmd, rest);
      const args = cmd.registeredArguments;
      const variadic = args.at(-1)?.variadic === true;
      expect(operands.length, `operands of caesar ${path.join(' ')}`).toBeGreaterThanOrEqual(
        args.filter((a) => a.required).length,
      );
      if (!variadic) expect(operands.length).toBeLessThanOrEqual(args.length);
      if (path.join(' ') === 'legion serve-tool') {
        for (const tool of operands) expect(defaultToolNames()).toContain(tool);
      }
    },
  );

  test('the brain service runs `caesar brain`', () => {
    const brain = compose.services.brain;
    expect(brain, 'docker-compose.yml has a brain service').toBeDefined();
    const argv = commandOf('brain', brain!);
    expect(argv[0]).toBe('brain');
    const exists = program.commands.some((c) => c.name() === 'brain');
    expect(
      exists,
      '`caesar brain` is missing from buildProgram() (src/cli/commands/brain.ts not registered)',
    ).toBe(true);
  });

  test.each(Object.entries(compose.services))(
    'every CAESAR_* variable of service %s names a config key',
    (name, service) => {
      for (const variable of Object.keys(envOf(service))) {
        if (!variable.startsWith('CAESAR_') || variable === 'CAESAR_CONFIG') continue;
        const target = envTarget(variable);
        expect('problem' in target ? `${variable}: ${target.problem}` : '', `service ${name}`).toBe(
          '',
        );
      }
    },
  );

  test.each(caesarServices)('service %s: its environment loads as a valid config', async (_, s) => {
    await expect(serviceConfig(s, new Map())).resolves.toBeDefined();
  });

  test.each(caesarServices)(
    'service %s reaches NATS by a compose service name',
    async (name, s) => {
      const config = await serviceConfig(s, new Map());
      for (const url of config.bus.servers) {
        expect(Object.keys(compose.services)).toContain(new URL(url).hostname);
      }
    },
  );

  test.each(caesarServices)(
    'service %s mounts volumes only at directories the app uses',
    async (name, service) => {
      const argv = commandOf(name, service);
      const { cmd, rest } = resolveCommand(program, argv);
      const { flags } = parseArgs(name, cmd, rest);
      const config: CaesarConfig = await serviceConfig(service, flags);
      const used = [config.dataDir, dirname(config.policy.file)];
      for (const volume of service.volumes ?? []) {
        const target = volume.split(':')[1];
        expect(used, `volume ${volume} of ${name}`).toContain(target);
      }
    },
  );

  test('the brain keeps its state and reads its policy from the var and policy volumes', () => {
    const targets = (compose.services.brain?.volumes ?? []).map((v) => v.split(':')[1]);
    expect(targets.sort()).toEqual([posix.join(workdir, 'policy'), posix.join(workdir, 'var')]);
    expect(existsSync(join(root, 'policy', 'policy.yaml'))).toBe(true);
  });

  test('the brain publishes its API port on host loopback only, and its healthcheck probes /healthz on it', async () => {
    const brain = compose.services.brain!;
    const config = await serviceConfig(brain, new Map());
    expect(brain.ports).toEqual([`127.0.0.1:${config.api.port}:${config.api.port}`]);
    expect(JSON.stringify(brain.healthcheck?.test)).toContain(
      `http://127.0.0.1:${config.api.port}/healthz`,
    );
  });

  test('no service publishes a port beyond host loopback', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) {
        expect(port, `service ${name}`).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
      }
    }
  });

  test('files mounted into nats exist in the repository, or the one-time setup writes them (gitignored)', () => {
    const ignored = read('.gitignore').split('\n');
    for (const volume of compose.services.nats?.volumes ?? []) {
      const source = volume.split(':')[0]!;
      if (source.startsWith('./secrets/')) expect(ignored).toContain('/secrets/');
      else expect(existsSync(join(root, source)), volume).toBe(true);
    }
  });
});

describe('Dockerfile', () => {
  test('ENTRYPOINT runs the bin that package.json declares, as compiled by tsconfig.build.json', () => {
    const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string> };
    expect(JSON.parse(instruction('ENTRYPOINT'))).toEqual(['node', pkg.bin.caesar]);
    const tsconfig = JSON.parse(read('tsconfig.json')) as { compilerOptions: { outDir: string } };
    expect(pkg.bin.caesar).toBe(`${tsconfig.compilerOptions.outDir}/src/cli/main.js`);
    expect(existsSync(join(root, 'src/cli/main.ts'))).toBe(true);
  });

  test('the build stage copies every script `npm run build` runs', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const scripts = pkg.scripts.build!.match(/scripts\/[\w./-]+/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(dockerfile).toContain(`COPY ${script} ./${script}`);
  });

  test('the runtime stage has every folder the package ships (package.json "files")', () => {
    const pkg = JSON.parse(read('package.json')) as { files: string[] };
    const runtime = dockerfile.slice(dockerfile.indexOf(' AS runtime'));
    for (const folder of pkg.files) {
      expect(runtime).toMatch(
        new RegExp(`^COPY (--from=build /app/)?${folder} \\./${folder}$`, 'm'),
      );
    }
  });

  test('the runtime stage starts from node:20-bookworm-slim and runs as user caesar', () => {
    const stages = dockerfile.split('\n').filter((l) => l.startsWith('FROM '));
    expect(stages).toEqual([
      'FROM node:20-bookworm-slim AS build',
      'FROM node:20-bookworm-slim AS runtime',
    ]);
    expect(instruction('USER')).toBe('caesar');
  });

  test('VOLUME names the default data dir from WORKDIR and the policy directory compose mounts', async () => {
    const config = await loadConfig({ env: {}, cwd: workdir });
    const volumes = JSON.parse(instruction('VOLUME')) as string[];
    expect(volumes.sort()).toEqual([posix.join(workdir, 'policy'), config.dataDir].sort());
  });
});
