import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { BusOptions } from '../../../src/bus/index.js';
import { ConfigError, loadConfig, type CaesarConfig } from '../../../src/config/index.js';
import { tempDir } from './temp-dir.js';

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe('loadConfig defaults', () => {
  test('no file and an empty env give the offline single-machine defaults', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(config).toEqual({
      dataDir: join(dir.path, 'var'),
      log: { level: 'info', format: 'auto' },
      bus: {
        servers: ['nats://127.0.0.1:4222'],
        reconnectWaitMs: 2000,
        reconnectJitterMs: 1000,
        connectTimeoutMs: 5000,
        jetstreamReplicas: 1,
      },
      busOptions: {
        servers: ['nats://127.0.0.1:4222'],
        auth: { kind: 'none' },
        reconnectTimeWaitMs: 2000,
        reconnectJitterMs: 1000,
        connectTimeoutMs: 5000,
      },
      worker: {
        host: hostname(),
        graceMs: 10_000,
        trustedBrains: [],
        requireGrant: true,
        modules: [],
        importTimeoutMs: 10_000,
        maxHeapMb: 256,
      },
      watchdog: { timeoutMs: 10_000, stopGraceMs: 5000, thread: 'auto' },
      embedded: { natsHost: '127.0.0.1', natsPort: 4222 },
      policy: { file: join(dir.path, 'var', 'policy.yaml'), maxFileBytes: 524_288 },
      audit: { file: join(dir.path, 'var', 'audit.db'), retentionDays: 90, writerIdleMs: 60_000 },
      api: {
        host: '127.0.0.1',
        port: 8420,
        tokensFile: join(dir.path, 'var', 'api-tokens.yaml'),
        bodyLimitBytes: 1_048_576,
        rateLimitPerMinute: 600,
        streams: {
          events: { max: 8, perToken: 3 },
          chat: { max: 32, perToken: 8 },
          stallMs: 60_000,
        },
      },
      brain: {
        maxIterations: 5,
        callTimeoutMs: 30_000,
        confirmationTtlMs: 120_000,
        historyLimit: 40,
        messageMaxChars: 8000,
        intentsFile: join(dir.path, 'var', 'intents.yaml'),
        conversationsFile: join(dir.path, 'var', 'conversations.db'),
        preferLocal: true,
        trustedWorkers: {},
      },
      llm: {
        provider: 'none',
        fallback: [],
        retries: 2,
        mode: 'react',
        maxCallsPerRound: 8,
        maxCallsPerTurn: 24,
        includeTags: [],
        excludeTags: [],
        endpoints: {
          openai: {
            provider: 'openai',
            baseUrl: 'https://api.openai.com/v1',
            timeoutMs: 60_000,
            maxTokens: 1024,
          },
          anthropic: {
            provider: 'anthropic',
            baseUrl: 'https://api.anthropic.com',
            timeoutMs: 60_000,
            maxTokens: 1024,
          },
          ollama: {
            provider: 'ollama',
            baseUrl: 'http://localhost:11434',
            timeoutMs: 60_000,
            maxTokens: 1024,
          },
        },
      },
      ha: { timeout_seconds: 10, verify_ssl: true },
      tools: {},
      toolLimits: { allowGpu: true },
    } satisfies CaesarConfig);
    expect(config.configFile).toBeUndefined();
  });

  test("audit.writer_idle reaches the audit log's options as ms; 0s keeps the thread", async () => {
    await using dir = await tempDir();
    const two = await loadConfig({ env: { CAESAR_AUDIT__WRITER_IDLE: '2s' }, cwd: dir.path });
    expect(two.audit.writerIdleMs).toBe(2000);
    const keep = await loadConfig({ env: { CAESAR_AUDIT__WRITER_IDLE: '0s' }, cwd: dir.path });
    expect(keep.audit.writerIdleMs).toBe(0);
  });

  test('worker.modules: paths become absolute against cwd, package names stay, env is a list', async () => {
    await using dir = await tempDir();
    await dir.write(
      'caesar.yaml',
      'worker:\n  modules: [./greeter, /opt/clock.js, caesar-tool-x]\n',
    );
    const fromFile = await loadConfig({ env: {}, cwd: dir.path });
    expect(fromFile.worker.modules).toEqual([
      join(dir.path, 'greeter'),
      '/opt/clock.js',
      'caesar-tool-x',
    ]);
    const fromEnv = await loadConfig({
      env: { CAESAR_WORKER__MODULES: './a.js, @home/b' },
      cwd: join(dir.path, 'var'),
    });
    expect(fromEnv.worker.modules).toEqual([join(dir.path, 'var', 'a.js'), '@home/b']);
  });

  test('brain.trusted_workers: `<tool>=<key>` entries, grouped by tool; anything else is refused', async () => {
    await using dir = await tempDir();
    const a = `UA${'A'.repeat(54)}`;
    const b = `UB${'B'.repeat(54)}`;
    const config = await loadConfig({
      env: {
        CAESAR_BRAIN__TRUSTED_WORKERS: `call_service=${a}, calculator=${b},call_service=${b}`,
      },
      cwd: dir.path,
    });
    expect(config.brain.trustedWorkers).toEqual({ call_service: [a, b], calculator: [b] });
    for (const bad of [a, `call_service=${a.slice(1)}`, `Call=${a}`, `call_service=`]) {
      const err = await loadConfig({
        env: { CAESAR_BRAIN__TRUSTED_WORKERS: bad },
        cwd: dir.path,
      }).catch((e: unknown) => e);
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect(String((err as ConfigError).message)).toMatch(
        /brain\.trusted_workers.*<tool>=<NKEY public key>/s,
      );
    }
  });

  test('the result is deep-frozen', async () => {
    await using dir = await tempDir();
    await dir.write(
      'caesar.yaml',
      'tools:\n  web_search:\n    engines: [a, b]\n    nested: { x: 1 }\n',
    );
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(isDeepFrozen(config)).toBe(true);
    expect(() => {
      (config.bus.servers as string[]).push('nats://evil:4222');
    }).toThrow(TypeError);
  });

  test('busOptions can be handed to connectBus as is', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: {}, cwd: dir.path });
    const options: BusOptions = config.busOptions;
    expect(options.servers).toEqual(['nats://127.0.0.1:4222']);
  });
});

describe('config file lookup', () => {
  test('reads <cwd>/caesar.yaml when it exists', async () => {
    await using dir = await tempDir();
    const file = await dir.write('caesar.yaml', 'log:\n  level: debug\n');
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(config.log.level).toBe('debug');
    expect(config.configFile).toBe(file);
  });

  test('CAESAR_CONFIG names the file, relative to cwd', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'log:\n  level: debug\n');
    await dir.write('etc/other.yaml', 'log:\n  level: warn\n');
    const config = await loadConfig({ env: { CAESAR_CONFIG: 'etc/other.yaml' }, cwd: dir.path });
    expect(config.log.level).toBe('warn');
    expect(config.configFile).toBe(join(dir.path, 'etc', 'other.yaml'));
  });

  test('an explicit file beats CAESAR_CONFIG', async () => {
    await using dir = await tempDir();
    await dir.write('a.yaml', 'log:\n  level: trace\n');
    await dir.write('b.yaml', 'log:\n  level: warn\n');
    const config = await loadConfig({
      file: 'a.yaml',
      env: { CAESAR_CONFIG: 'b.yaml' },
      cwd: dir.path,
    });
    expect(config.log.level).toBe('trace');
  });

  test.each([
    { name: 'explicit file', opts: { file: 'missing.yaml' }, source: 'FILE' },
    {
      name: 'CAESAR_CONFIG',
      opts: { env: { CAESAR_CONFIG: 'missing.yaml' } },
      source: 'CAESAR_CONFIG',
    },
  ])('a missing $name is a ConfigError naming it', async ({ opts, source }) => {
    await using dir = await tempDir();
    const missing = join(dir.path, 'missing.yaml');
    const err = await loadConfig({ env: {}, cwd: dir.path, ...opts }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues).toEqual([
      {
        source: source === 'FILE' ? missing : source,
        path: '',
        message: `config file ${missing} does not exist`,
      },
    ]);
  });

  test('an empty file, or one with only comments, gives the defaults', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', '# nothing here\n');
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(config.log.level).toBe('info');
  });
});

describe('layers', () => {
  const yaml = [
    'data_dir: /srv/caesar',
    'log:',
    '  level: warn',
    'bus:',
    '  url: nats://file:4222',
    '  reconnect_wait: 3s',
    'embedded:',
    '  nats_port: 5222',
    'worker:',
    '  host: kitchen-pi',
    '',
  ].join('\n');

  test('file values replace defaults; keys the file leaves out keep them', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', yaml);
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(config.dataDir).toBe('/srv/caesar');
    expect(config.audit.file).toBe('/srv/caesar/audit.db');
    expect(config.log.level).toBe('warn');
    expect(config.bus.servers).toEqual(['nats://file:4222']);
    expect(config.bus.reconnectWaitMs).toBe(3000);
    expect(config.bus.connectTimeoutMs).toBe(5000);
    expect(config.embedded.natsPort).toBe(5222);
    expect(config.worker.host).toBe('kitchen-pi');
  });

  test('env beats the file, overrides beat env', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', yaml);
    const env = {
      CAESAR_LOG__LEVEL: 'debug',
      CAESAR_BUS__URL: 'nats://env:4222',
      CAESAR_EMBEDDED__NATS_PORT: '6222',
    };
    const fromEnv = await loadConfig({ env, cwd: dir.path });
    expect(fromEnv.log.level).toBe('debug');
    expect(fromEnv.bus.servers).toEqual(['nats://env:4222']);
    expect(fromEnv.embedded.natsPort).toBe(6222);
    expect(fromEnv.bus.reconnectWaitMs).toBe(3000);

    const overridden = await loadConfig({
      env,
      cwd: dir.path,
      overrides: { log: { level: 'error' }, bus: { url: 'nats://flag:4222' } },
    });
    expect(overridden.log.level).toBe('error');
    expect(overridden.bus.servers).toEqual(['nats://flag:4222']);
    expect(overridden.embedded.natsPort).toBe(6222);
  });

  test('undefined values in overrides are ignored', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: { CAESAR_LOG__LEVEL: 'debug' },
      cwd: dir.path,
      overrides: { log: { level: undefined }, data_dir: undefined },
    });
    expect(config.log.level).toBe('debug');
    expect(config.dataDir).toBe(join(dir.path, 'var'));
  });

  test('an empty env var unsets the key, so the default applies again', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'bus:\n  nkey_seed_file: ./seed.nk\n');
    const config = await loadConfig({
      env: { CAESAR_BUS__NKEY_SEED_FILE: '', CAESAR_BUS__TOKEN: 's3cret' },
      cwd: dir.path,
    });
    expect(config.bus.nkeySeedFile).toBeUndefined();
    expect(config.busOptions.auth).toEqual({ kind: 'token', token: 's3cret' });
  });

  test('a key with no value in YAML counts as not set', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'bus:\n  token:\n  url:\nlog:\n');
    const config = await loadConfig({ env: {}, cwd: dir.path });
    expect(config.bus.token).toBeUndefined();
    expect(config.bus.servers).toEqual(['nats://127.0.0.1:4222']);
  });

  test('unrelated env vars are ignored', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: { PATH: '/bin', HOME: '/root', NATS_URL: 'nats://x:1', CAESARX: '1' },
      cwd: dir.path,
    });
    expect(config.bus.servers).toEqual(['nats://127.0.0.1:4222']);
  });
});

describe('normalisation', () => {
  test('relative paths in the file resolve against its directory; env paths against cwd', async () => {
    await using dir = await tempDir();
    await dir.write(
      'etc/caesar.yaml',
      [
        'data_dir: state',
        'bus:',
        '  creds_file: ./secrets/worker.creds',
        'embedded:',
        '  nats_config: conf/nats.conf',
        'policy:',
        '  file: /etc/caesar/policy.yaml',
        'audit:',
        '  file: ../audit/audit.db',
        '',
      ].join('\n'),
    );
    const etc = join(dir.path, 'etc');
    const config = await loadConfig({ file: 'etc/caesar.yaml', env: {}, cwd: dir.path });
    expect(config.dataDir).toBe(join(etc, 'state'));
    expect(config.bus.credsFile).toBe(join(etc, 'secrets', 'worker.creds'));
    expect(config.busOptions.auth).toEqual({
      kind: 'creds',
      credsFile: join(etc, 'secrets', 'worker.creds'),
    });
    expect(config.embedded.natsConfig).toBe(join(etc, 'conf', 'nats.conf'));
    expect(config.policy.file).toBe('/etc/caesar/policy.yaml');
    expect(config.audit.file).toBe(join(dir.path, 'audit', 'audit.db'));

    const fromEnv = await loadConfig({
      file: 'etc/caesar.yaml',
      env: { CAESAR_DATA_DIR: 'var2', CAESAR_POLICY__FILE: 'p.yaml' },
      cwd: dir.path,
    });
    expect(fromEnv.dataDir).toBe(join(dir.path, 'var2'));
    expect(fromEnv.policy.file).toBe(join(dir.path, 'p.yaml'));
  });

  test('defaults stay relative to the working directory even with a config file elsewhere', async () => {
    await using dir = await tempDir();
    await dir.write('etc/caesar.yaml', 'log:\n  level: warn\n');
    const config = await loadConfig({ file: 'etc/caesar.yaml', env: {}, cwd: dir.path });
    expect(config.dataDir).toBe(join(dir.path, 'var'));
    expect(config.policy.file).toBe(join(dir.path, 'var', 'policy.yaml'));
    expect(config.brain.intentsFile).toBe(join(dir.path, 'var', 'intents.yaml'));
  });

  test('the audit file follows data_dir from any layer', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: {}, cwd: dir.path, overrides: { data_dir: '/data' } });
    expect(config.audit.file).toBe('/data/audit.db');
  });

  test.each([
    { bus: { nkey_seed_file: 'a.nk' }, auth: { kind: 'nkey', seedFile: 'A/a.nk' } },
    { bus: { creds_file: 'a.creds' }, auth: { kind: 'creds', credsFile: 'A/a.creds' } },
    { bus: { token: 'tok' }, auth: { kind: 'token', token: 'tok' } },
    { bus: {}, auth: { kind: 'none' } },
  ])('bus auth $auth.kind becomes busOptions.auth', async ({ bus, auth }) => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: {}, cwd: dir.path, overrides: { bus } });
    const expected = JSON.parse(JSON.stringify(auth).replace('A/', `${dir.path}/`)) as unknown;
    expect(config.busOptions.auth).toEqual(expected);
  });

  test('inbox_identity becomes the inbox prefix', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: { CAESAR_BUS__INBOX_IDENTITY: 'worker-kitchen' },
      cwd: dir.path,
    });
    expect(config.bus.inboxIdentity).toBe('worker-kitchen');
    expect(config.busOptions.inboxPrefix).toBe('_INBOX.worker-kitchen');
  });

  test.each([
    { url: 'nats://a:4222,nats://b:4222', servers: ['nats://a:4222', 'nats://b:4222'] },
    { url: ' nats://a:4222 , tls://b:4222 ,', servers: ['nats://a:4222', 'tls://b:4222'] },
    { url: ['nats://a:4222', 'b:4222'], servers: ['nats://a:4222', 'b:4222'] },
    { url: '127.0.0.1:4333', servers: ['127.0.0.1:4333'] },
  ])('bus.url $url gives servers $servers', async ({ url, servers }) => {
    await using dir = await tempDir();
    const config = await loadConfig({ env: {}, cwd: dir.path, overrides: { bus: { url } } });
    expect(config.bus.servers).toEqual(servers);
    expect(config.busOptions.servers).toEqual(servers);
  });

  test('a comma list in CAESAR_BUS__URL gives several servers', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: { CAESAR_BUS__URL: 'nats://a:4222,nats://b:4222' },
      cwd: dir.path,
    });
    expect(config.bus.servers).toEqual(['nats://a:4222', 'nats://b:4222']);
  });

  test.each([
    { value: '500ms', ms: 500 },
    { value: '5s', ms: 5000 },
    { value: '1.5s', ms: 1500 },
    { value: '2m', ms: 120_000 },
    { value: '1h', ms: 3_600_000 },
    { value: '250', ms: 250 },
    { value: 750, ms: 750 },
    { value: 0, ms: 0 },
  ])('duration $value is $ms ms', async ({ value, ms }) => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: {},
      cwd: dir.path,
      overrides: { worker: { grace: value } },
    });
    expect(config.worker.graceMs).toBe(ms);
  });

  test('durations from env are parsed too', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: { CAESAR_BUS__CONNECT_TIMEOUT: '2m', CAESAR_BUS__RECONNECT_JITTER: '100' },
      cwd: dir.path,
    });
    expect(config.bus.connectTimeoutMs).toBe(120_000);
    expect(config.bus.reconnectJitterMs).toBe(100);
  });
});

describe('tools sections', () => {
  test('pass through as plain snake_case objects, merged across layers; env values stay strings', async () => {
    await using dir = await tempDir();
    await dir.write(
      'caesar.yaml',
      [
        'tools:',
        '  web_search:',
        '    searxng_url: http://127.0.0.1:8080',
        '    max_results: 5',
        '    domain_allowlist: [en.wikipedia.org]',
        '  calculator:',
        '',
      ].join('\n'),
    );
    const config = await loadConfig({
      env: {
        CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL: 'http://searx:8080',
        CAESAR_TOOLS__CALL_SERVICE__HA_URL: 'http://ha:8123',
        CAESAR_TOOLS__CALL_SERVICE__RETRY__MAX_ATTEMPTS: '3',
      },
      cwd: dir.path,
      overrides: { tools: { web_search: { safe_search: true } } },
    });
    expect(config.tools).toEqual({
      web_search: {
        searxng_url: 'http://searx:8080',
        max_results: 5,
        domain_allowlist: ['en.wikipedia.org'],
        safe_search: true,
      },
      call_service: { ha_url: 'http://ha:8123', retry: { max_attempts: '3' } },
    });
  });
});

describe('the example file', () => {
  test('config/caesar.example.yaml, copied to ./caesar.yaml, loads to exactly the defaults', async () => {
    await using dir = await tempDir();
    const example = join(import.meta.dirname, '../../../config/caesar.example.yaml');
    await dir.write('caesar.yaml', await readFile(example, 'utf8'));
    const fromExample = await loadConfig({ env: {}, cwd: dir.path });
    const defaults = await loadConfig({ env: {}, cwd: dir.path });
    expect({ ...fromExample, configFile: undefined }).toEqual({
      ...defaults,
      configFile: undefined,
    });
  });
});
