import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  loadConfig,
  loadConfigWithSources,
  redactSettings,
  type ConfigSetting,
} from '../../../src/config/index.js';
import { REDACTED } from '../../../src/text/index.js';
import { configNodes } from '../../../src/config/walk.js';
import { tempDir } from './temp-dir.js';

/** `{path: [value, source]}` for the paths asked about. */
function pick(settings: ReadonlyMap<string, ConfigSetting>, paths: string[]) {
  return Object.fromEntries(
    paths.map((p) => [p, [settings.get(p)?.value, settings.get(p)?.source] as const]),
  );
}

describe('loadConfigWithSources', () => {
  test('names the source of every value: default, file:line:col, env, env file, overrides', async () => {
    await using dir = await tempDir();
    const file = await dir.write(
      'caesar.yaml',
      ['log:', '  level: warn', 'bus:', '  url: nats://file:4222', '  reconnect_wait: 3s', ''].join(
        '\n',
      ),
    );
    const tokenFile = await dir.write('nats_token', 's3cret\n');
    const { config, settings } = await loadConfigWithSources({
      env: {
        CAESAR_LOG__LEVEL: 'debug',
        CAESAR_BUS__TOKEN_FILE: tokenFile,
        CAESAR_EMBEDDED__NATS_PORT: '5222',
      },
      cwd: dir.path,
      overrides: { embedded: { nats_port: 6222 } },
      overridesSource: 'flag',
    });
    expect(config.bus.token).toBe('s3cret');
    expect(
      pick(settings, [
        'log.level',
        'bus.url',
        'bus.reconnect_wait',
        'bus.token',
        'bus.connect_timeout',
        'embedded.nats_port',
      ]),
    ).toEqual({
      'log.level': ['debug', 'env CAESAR_LOG__LEVEL'],
      'bus.url': [['nats://file:4222'], `${file}:4:8`],
      'bus.reconnect_wait': [3000, `${file}:5:19`],
      'bus.token': ['s3cret', `env CAESAR_BUS__TOKEN_FILE -> ${tokenFile}`],
      'bus.connect_timeout': [5000, 'default'],
      'embedded.nats_port': [6222, 'flag'],
    });
  });

  test('the config is the one loadConfig returns', async () => {
    await using dir = await tempDir();
    const opts = { env: { CAESAR_LOG__LEVEL: 'trace' }, cwd: dir.path };
    expect((await loadConfigWithSources(opts)).config).toEqual(await loadConfig(opts));
  });

  test('every schema key is listed, set or not, in schema order', async () => {
    await using dir = await tempDir();
    const { settings } = await loadConfigWithSources({ env: {}, cwd: dir.path });
    const fields = configNodes()
      .filter((n) => n.type === 'field')
      .map((n) => n.path.join('.'));
    expect([...settings.keys()]).toEqual([...fields, 'tools']);
    expect(settings.get('bus.token')).toEqual({
      value: undefined,
      source: 'default',
      kind: 'string',
      secret: true,
    });
  });

  test('computed defaults are shown resolved, and every key with a computed default has one', async () => {
    await using dir = await tempDir();
    const { settings } = await loadConfigWithSources({
      env: { CAESAR_DATA_DIR: 'state' },
      cwd: dir.path,
    });
    const state = join(dir.path, 'state');
    expect(pick(settings, ['data_dir', 'audit.file', 'api.tokens_file', 'worker.host'])).toEqual({
      data_dir: [state, 'env CAESAR_DATA_DIR'],
      'audit.file': [join(state, 'audit.db'), 'default'],
      'api.tokens_file': [join(state, 'api-tokens.yaml'), 'default'],
      'worker.host': [hostname(), 'default'],
    });
    const computed = configNodes().filter(
      (n) => n.type === 'field' && n.meta.defaultText !== undefined,
    );
    expect(computed.length).toBeGreaterThan(0);
    for (const node of computed) {
      expect(settings.get(node.path.join('.'))?.value, node.path.join('.')).toBeDefined();
    }
  });

  test('relative paths from env are absolute, against the working directory', async () => {
    await using dir = await tempDir();
    const { settings } = await loadConfigWithSources({
      env: { CAESAR_BUS__CREDS_FILE: 'w.creds', CAESAR_POLICY__FILE: 'p.yaml' },
      cwd: dir.path,
    });
    expect(settings.get('bus.creds_file')?.value).toBe(join(dir.path, 'w.creds'));
    expect(settings.get('policy.file')?.value).toBe(join(dir.path, 'p.yaml'));
  });

  test('a default in effect because an empty env var cleared the key names that var', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'worker:\n  host: kitchen-pi\n');
    const { settings } = await loadConfigWithSources({
      env: { CAESAR_WORKER__HOST: '' },
      cwd: dir.path,
    });
    expect(pick(settings, ['worker.host'])).toEqual({
      'worker.host': [hostname(), 'default, cleared by env CAESAR_WORKER__HOST'],
    });
  });

  test('an auth key replaced by a higher source shows as not set', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'bus:\n  nkey_seed_file: ./seed.nk\n');
    const { settings } = await loadConfigWithSources({
      env: { CAESAR_BUS__TOKEN: 'tok' },
      cwd: dir.path,
    });
    expect(pick(settings, ['bus.nkey_seed_file', 'bus.token'])).toEqual({
      'bus.nkey_seed_file': [undefined, 'default'],
      'bus.token': ['tok', 'env CAESAR_BUS__TOKEN'],
    });
  });

  test('tool sections are listed leaf by leaf, lists whole, each leaf with its own source', async () => {
    await using dir = await tempDir();
    const file = await dir.write(
      'caesar.yaml',
      [
        'tools:',
        '  web_search:',
        '    searxng_url: http://s:8080',
        '    engines: [a, b]',
        '    limits: { per_minute: 10 }',
        '  calculator: {}',
        '',
      ].join('\n'),
    );
    const { settings } = await loadConfigWithSources({
      env: { CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY: 'k1' },
      cwd: dir.path,
    });
    // `tools.limits.*` are schema keys, listed with the others
    const tools = [...settings].filter(
      ([p]) => p.startsWith('tools') && !p.startsWith('tools.limits.'),
    );
    expect(Object.fromEntries(tools.map(([p, s]) => [p, [s.value, s.source, s.secret]]))).toEqual({
      'tools.web_search.searxng_url': ['http://s:8080', `${file}:3:18`, false],
      'tools.web_search.engines': [['a', 'b'], `${file}:4:14`, false],
      'tools.web_search.limits.per_minute': [10, `${file}:5:27`, false],
      'tools.web_search.brave_api_key': ['k1', 'env CAESAR_TOOLS__WEB_SEARCH__BRAVE_API_KEY', true],
      'tools.calculator': [{}, `${file}:6:15`, false],
    });
  });
});

describe('redactSettings', () => {
  test('masks secrets whatever their source and hides URL userinfo', async () => {
    await using dir = await tempDir();
    const tokenFile = await dir.write('tok', 'from-a-file');
    const { settings } = await loadConfigWithSources({
      env: {
        CAESAR_BUS__URL: 'nats://user:pw@a:4222',
        CAESAR_BUS__TOKEN_FILE: tokenFile,
        CAESAR_TOOLS__CALL_SERVICE__ACCESS_TOKEN: 'secret-ha-token-4711',
      },
      cwd: dir.path,
    });
    const safe = redactSettings(settings);
    expect(safe.get('bus.token')?.value).toBe(REDACTED);
    expect(safe.get('bus.token')?.source).toBe(`env CAESAR_BUS__TOKEN_FILE -> ${tokenFile}`);
    expect(safe.get('tools.call_service.access_token')?.value).toBe(REDACTED);
    expect(safe.get('bus.url')?.value).toEqual(['nats://[redacted]@a:4222']);
    expect(safe.get('bus.creds_file')?.value).toBeUndefined();
    expect(JSON.stringify([...safe])).not.toMatch(/from-a-file|secret-ha-token-4711|:pw@/);
    expect(settings.get('bus.token')?.value).toBe('from-a-file');
  });
});
