import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  loadConfigAndStack,
  loadConfigWithSources,
  RuntimeFileError,
  writeRuntimeFile,
  type RuntimeInfoInput,
} from '../../../src/config/index.js';
import { runtimeFilePath } from '../../../src/config/runtime-file.js';
import { tempDir, type TempDir } from '../../unit/config/temp-dir.js';

/** A runtime.json `caesar up` (this process, so alive) wrote for `dataDir`. */
function running(dataDir: string, extra: Partial<RuntimeInfoInput> = {}): RuntimeInfoInput {
  return {
    pid: process.pid,
    started_at: '2026-01-01T00:00:00.000Z',
    data_dir: dataDir,
    nats_url: 'nats://127.0.0.1:5999',
    api_url: 'http://127.0.0.1:8499',
    token_file: join(dataDir, 'api-tokens.yaml'),
    token_name: 'operator',
    audit_db: '/run/stack/audit.db',
    policy_file: '/run/stack/policy.yaml',
    tools: ['calculator'],
    ...extra,
  };
}

type Layer = 'flag' | 'env' | 'file' | 'runtime.json';

/** One setting runtime.json supplies: where it sits in each source, and each source's value. */
const SETTINGS = [
  {
    path: 'audit.file',
    env: 'CAESAR_AUDIT__FILE',
    value: (layer: Layer) => `/${layer.replace('.', '-')}/audit.db`,
    of: (c: { audit: { file: string } }) => c.audit.file,
  },
  {
    path: 'policy.file',
    env: 'CAESAR_POLICY__FILE',
    value: (layer: Layer) => `/${layer.replace('.', '-')}/policy.yaml`,
    of: (c: { policy: { file: string } }) => c.policy.file,
  },
  {
    path: 'bus.url',
    env: 'CAESAR_BUS__URL',
    value: (layer: Layer) => `nats://${layer.replace('.', '-')}:4222`,
    of: (c: { bus: { servers: readonly string[] } }) => c.bus.servers.join(','),
  },
] as const;

/** Loads with runtime.json read, the setting set in exactly the given sources. */
async function loadWith(dir: TempDir, setting: (typeof SETTINGS)[number], layers: Layer[]) {
  const [section, key] = setting.path.split('.') as [string, string];
  const dataDir = join(dir.path, 'var');
  if (layers.includes('runtime.json')) {
    const v = setting.value('runtime.json');
    const field = { 'audit.file': 'audit_db', 'policy.file': 'policy_file', 'bus.url': 'nats_url' };
    await writeRuntimeFile(dataDir, running(dataDir, { [field[setting.path]]: v }));
  }
  if (layers.includes('file')) {
    await dir.write('caesar.yaml', `${section}:\n  ${key}: ${setting.value('file')}\n`);
  }
  return loadConfigWithSources({
    cwd: dir.path,
    env: layers.includes('env') ? { [setting.env]: setting.value('env') } : {},
    ...(layers.includes('flag')
      ? { overrides: { [section]: { [key]: setting.value('flag') } }, overridesSource: 'flag' }
      : {}),
    runningStack: true,
  });
}

describe('runtime.json as a config layer', () => {
  describe.each(SETTINGS)('$path', (setting) => {
    test.each([
      [['flag', 'env', 'file', 'runtime.json'], 'flag'],
      [['env', 'file', 'runtime.json'], 'env'],
      [['file', 'runtime.json'], 'file'],
      [['runtime.json'], 'runtime.json'],
    ] as [Layer[], Layer][])(
      'set in %j: %s wins and is named the source',
      async (layers, winner) => {
        await using dir = await tempDir();
        const { config, settings } = await loadWith(dir, setting, layers);
        expect(setting.of(config)).toBe(setting.value(winner));
        const source = settings.get(setting.path)?.source;
        if (winner === 'flag') expect(source).toBe('flag');
        if (winner === 'env') expect(source).toBe(`env ${setting.env}`);
        if (winner === 'file') expect(source).toMatch(/caesar\.yaml:2:\d+$/);
        if (winner === 'runtime.json') expect(source).toBe(runtimeFilePath(join(dir.path, 'var')));
      },
    );

    test('set nowhere: the built-in default, named default', async () => {
      await using dir = await tempDir();
      const { settings, runningStack } = await loadWith(dir, setting, []);
      expect(settings.get(setting.path)?.source).toBe('default');
      expect(runningStack?.info).toBeUndefined();
    });
  });

  test("the stack's operator seed comes with its NATS URL", async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    const seed = join(dataDir, 'nkeys', 'operator.nk');
    await writeRuntimeFile(dataDir, running(dataDir, { nats_seed_file: seed }));
    const { config } = await loadConfigWithSources({ cwd: dir.path, env: {}, runningStack: true });
    expect(config.busOptions).toMatchObject({
      servers: ['nats://127.0.0.1:5999'],
      auth: { kind: 'nkey', seedFile: seed },
    });
  });

  // Issue 29, point 5: a brain run alone names operator.nk beside its own seed (ADR 0072)
  test("a lone brain's operator.nk is the client's seed when the file is there, and only then", async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    const seed = join(dir.path, 'etc', 'operator.nk');
    await writeRuntimeFile(dataDir, running(dataDir, { operator_seed_file: seed }));
    const absent = await loadConfigAndStack({ cwd: dir.path, env: {} });
    expect(absent.config.busOptions.auth).toEqual({ kind: 'none' });
    expect(absent.runningStack.operatorSeed).toEqual({ offered: true, looked: [seed] });

    await dir.write('etc/operator.nk', 'SU…\n');
    const present = await loadConfigAndStack({ cwd: dir.path, env: {} });
    expect(present.config.busOptions).toMatchObject({
      servers: ['nats://127.0.0.1:5999'],
      auth: { kind: 'nkey', seedFile: seed },
    });
    expect(present.runningStack.operatorSeed).toEqual({
      offered: true,
      file: seed,
      looked: [seed],
    });

    // the seed goes with its own server only: a configured URL gets neither
    const env = { CAESAR_BUS__URL: 'nats://nats.lan:4222' };
    const elsewhere = await loadConfigAndStack({ cwd: dir.path, env });
    expect(elsewhere.config.busOptions.auth).toEqual({ kind: 'none' });
    expect(elsewhere.runningStack.operatorSeed).toEqual({ offered: false, looked: [] });
  });

  test("caesar up's minted seed comes before a lone brain's operator.nk", async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    const minted = join(dataDir, 'nkeys', 'operator.nk');
    const beside = await dir.write('etc/operator.nk', 'SU…\n');
    await writeRuntimeFile(
      dataDir,
      running(dataDir, { nats_seed_file: minted, operator_seed_file: beside }),
    );
    const { config } = await loadConfigAndStack({ cwd: dir.path, env: {} });
    expect(config.busOptions.auth).toEqual({ kind: 'nkey', seedFile: minted });
  });

  test('a configured NATS URL keeps the stack seed away from that server', async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    await writeRuntimeFile(dataDir, running(dataDir, { nats_seed_file: join(dataDir, 'op.nk') }));
    const env = { CAESAR_BUS__URL: 'nats://nats.lan:4222' };
    const { config } = await loadConfigWithSources({ cwd: dir.path, env, runningStack: true });
    expect(config.busOptions).toMatchObject({
      servers: ['nats://nats.lan:4222'],
      auth: { kind: 'none' },
    });
  });

  test('a configured auth key beats the stack seed (one auth method, ADR 0004)', async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    await writeRuntimeFile(dataDir, running(dataDir, { nats_seed_file: join(dataDir, 'op.nk') }));
    const env = { CAESAR_BUS__CREDS_FILE: '/etc/caesar/cli.creds' };
    const { config } = await loadConfigWithSources({ cwd: dir.path, env, runningStack: true });
    expect(config.busOptions).toMatchObject({
      servers: ['nats://127.0.0.1:5999'],
      auth: { kind: 'creds', credsFile: '/etc/caesar/cli.creds' },
    });
  });

  test('a stale runtime.json (its pid is gone) is ignored, and the reason is kept', async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    const { pid } = spawnSync(process.execPath, ['-e', '']);
    await writeRuntimeFile(dataDir, running(dataDir, { pid }));
    const { config, settings, runningStack } = await loadConfigWithSources({
      cwd: dir.path,
      env: {},
      runningStack: true,
    });
    expect(config.audit.file).toBe(join(dataDir, 'audit.db'));
    expect(settings.get('audit.file')?.source).toBe('default');
    expect(runningStack).toEqual({
      file: runtimeFilePath(dataDir),
      missing: `stale runtime.json from pid ${pid}; is \`caesar up\` running?`,
    });
  });

  test('no runtime.json: nothing supplied, and the reason names the data dir', async () => {
    await using dir = await tempDir();
    const { runningStack } = await loadConfigWithSources({
      cwd: dir.path,
      env: {},
      runningStack: true,
    });
    const dataDir = join(dir.path, 'var');
    expect(runningStack?.missing).toBe(`no runtime.json in ${dataDir}; is \`caesar up\` running?`);
  });

  test('the data dir named in caesar.yaml is where runtime.json is looked for', async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'state');
    await dir.write('caesar.yaml', 'data_dir: state\n');
    await writeRuntimeFile(dataDir, running(dataDir));
    const { config } = await loadConfigWithSources({ cwd: dir.path, env: {}, runningStack: true });
    expect(config.audit.file).toBe('/run/stack/audit.db');
  });

  test('without runningStack (the servers) runtime.json is not read', async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    await writeRuntimeFile(dataDir, running(dataDir));
    const loaded = await loadConfigWithSources({ cwd: dir.path, env: {} });
    expect(loaded.config.audit.file).toBe(join(dataDir, 'audit.db'));
    expect(loaded.runningStack).toBeUndefined();
  });

  test('a malformed runtime.json is an error naming the file', async () => {
    await using dir = await tempDir();
    const file = await dir.write('var/runtime.json', '{"v": 1, pid');
    const err = await loadConfigWithSources({ cwd: dir.path, env: {}, runningStack: true }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RuntimeFileError);
    expect((err as RuntimeFileError).file).toBe(file);
  });

  test('loadConfigAndStack gives the same config and stack as loadConfigWithSources, without the sources', async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'var');
    await writeRuntimeFile(dataDir, running(dataDir));
    await dir.write('caesar.yaml', 'api:\n  port: 9000\n');
    const opts = { cwd: dir.path, env: { CAESAR_LOG__LEVEL: 'debug' } };
    const light = await loadConfigAndStack(opts);
    const full = await loadConfigWithSources({ ...opts, runningStack: true });
    expect(light.config).toEqual(full.config);
    expect(light.runningStack).toEqual(full.runningStack);
    expect(light.runningStack.info?.api_url).toBe('http://127.0.0.1:8499');
    expect(light).not.toHaveProperty('settings');
    expect(Object.isFrozen(light.runningStack)).toBe(true);
  });
});
