import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, type ConfigIssue } from '../../../src/config/index.js';
import type { LoadConfigOptions } from '../../../src/config/load.js';
import { tempDir } from './temp-dir.js';

/** Loads and returns the ConfigError's issues, with `FILE` standing for the temp caesar.yaml. */
async function issuesOf(
  yaml: string | undefined,
  opts: LoadConfigOptions = {},
): Promise<ConfigIssue[]> {
  await using dir = await tempDir();
  const file = yaml === undefined ? undefined : await dir.write('caesar.yaml', yaml);
  const err = await loadConfig({ env: {}, cwd: dir.path, ...opts }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  const issues = (err as ConfigError).issues;
  return issues.map((i) => ({ ...i, source: file ? i.source.replace(file, 'FILE') : i.source }));
}

describe('YAML errors name file:line:col and the key path', () => {
  test.each([
    {
      name: 'unknown top-level key',
      yaml: 'data_dir: ./var\nlogs:\n  level: info\n',
      issue: {
        source: 'FILE:2:1',
        path: 'logs',
        message: "unknown key 'logs' (did you mean 'log'?)",
      },
    },
    {
      name: 'unknown nested key',
      yaml: 'bus:\n  url: nats://a:4222\n  nkey_seed: x\n',
      issue: {
        source: 'FILE:3:3',
        path: 'bus.nkey_seed',
        message: "unknown key 'nkey_seed'",
      },
    },
    {
      name: 'unknown key with no value',
      yaml: 'worker:\n  hots:\n',
      issue: {
        source: 'FILE:2:3',
        path: 'worker.hots',
        message: "unknown key 'hots' (did you mean 'host'?)",
      },
    },
    {
      name: 'unknown time zone',
      yaml: 'brain:\n  time_zone: Europe/Atlantis\n',
      issue: {
        source: 'FILE:2:14',
        path: 'brain.time_zone',
        message: 'expected an IANA time zone such as Europe/Berlin',
      },
    },
    {
      name: 'bad enum',
      yaml: 'log:\n  level: loud\n',
      issue: {
        source: 'FILE:2:10',
        path: 'log.level',
        message:
          'Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      },
    },
    {
      name: 'bad duration',
      yaml: 'bus:\n  reconnect_wait: 5 fortnights\n',
      issue: {
        source: 'FILE:2:19',
        path: 'bus.reconnect_wait',
        message:
          "invalid duration '5 fortnights': expected a duration such as 500ms, 5s, 1.5m, 2 hours or 1d, or a number of milliseconds",
      },
    },
    {
      name: 'port out of range',
      yaml: 'embedded:\n  nats_port: 70000\n',
      issue: {
        source: 'FILE:2:14',
        path: 'embedded.nats_port',
        message: 'Too big: expected number to be <=65535',
      },
    },
    {
      name: 'wrong type',
      yaml: 'audit:\n  retention_days: soon\n',
      issue: {
        source: 'FILE:2:19',
        path: 'audit.retention_days',
        message: 'expected number, received string',
      },
    },
    {
      name: 'section that is not a map',
      yaml: 'bus: nats://a:4222\n',
      issue: { source: 'FILE:1:6', path: 'bus', message: 'expected object, received string' },
    },
    {
      name: 'bad server URL',
      yaml: 'bus:\n  url: [nats://a:4222, "http://b:80"]\n',
      issue: {
        source: 'FILE:2:8',
        path: 'bus.url',
        message: "'http://b:80' has scheme 'http://'; expected nats://, tls:// or a bare host:port",
      },
    },
    {
      name: 'bad tool name',
      yaml: 'tools:\n  Web-Search:\n    url: x\n',
      issue: {
        source: 'FILE:2:3',
        path: 'tools.Web-Search',
        message: "invalid key 'Web-Search': tool names match ^[a-z][a-z0-9_]{0,63}$",
      },
    },
    {
      name: 'tool section that is not a map',
      yaml: 'tools:\n  calculator: on\n',
      issue: {
        source: 'FILE:2:15',
        path: 'tools.calculator',
        message: 'expected a map of settings for the tool',
      },
    },
    {
      name: 'bad inbox identity',
      yaml: 'bus:\n  inbox_identity: "a.b"\n',
      issue: {
        source: 'FILE:2:19',
        path: 'bus.inbox_identity',
        message: 'expected 1-64 letters, digits, `_` or `-`',
      },
    },
    {
      name: 'duplicate key',
      yaml: 'log:\n  level: info\nlog:\n  level: debug\n',
      issue: { source: 'FILE:3:1', path: '', message: 'YAML: duplicated mapping key' },
    },
    {
      name: 'top level not a map',
      yaml: '- a\n- b\n',
      issue: {
        source: 'FILE:1:1',
        path: '',
        message: 'expected a map of settings at the top level',
      },
    },
  ])('$name', async ({ yaml, issue }) => {
    expect(await issuesOf(yaml)).toEqual([issue]);
  });

  test('a YAML syntax error names its position', async () => {
    const [issue, ...rest] = await issuesOf('bus:\n  url: [nats://a:4222\nlog: {}\n');
    expect(rest).toEqual([]);
    expect(issue?.source).toMatch(/^FILE:\d+:\d+$/);
    expect(issue?.message).toMatch(/^YAML: /);
  });
});

describe('env errors name the variable', () => {
  test.each([
    {
      name: 'unknown key with a hint',
      env: { CAESAR_LOG_LEVEL: 'debug' },
      issue: {
        source: 'CAESAR_LOG_LEVEL',
        path: 'log_level',
        message: 'unknown setting (did you mean CAESAR_LOG__LEVEL?)',
      },
    },
    {
      name: 'unknown key',
      env: { CAESAR_NOPE__WHATEVER: '1' },
      issue: { source: 'CAESAR_NOPE__WHATEVER', path: 'nope.whatever', message: 'unknown setting' },
    },
    {
      name: 'key below a leaf',
      env: { CAESAR_BUS__URL__HOST: 'x' },
      issue: { source: 'CAESAR_BUS__URL__HOST', path: 'bus.url.host', message: 'unknown setting' },
    },
    {
      name: 'a section instead of a key',
      env: { CAESAR_LOG: 'debug' },
      issue: {
        source: 'CAESAR_LOG',
        path: 'log',
        message: 'names a section, not a key; set one of CAESAR_LOG__LEVEL, CAESAR_LOG__FORMAT',
      },
    },
    {
      name: 'a tool section instead of a key',
      env: { CAESAR_TOOLS__WEB_SEARCH: 'x' },
      issue: {
        source: 'CAESAR_TOOLS__WEB_SEARCH',
        path: 'tools.web_search',
        message: 'names a section, not a key; set CAESAR_TOOLS__WEB_SEARCH__<KEY>',
      },
    },
    {
      name: 'not a number',
      env: { CAESAR_EMBEDDED__NATS_PORT: 'eighty' },
      issue: {
        source: 'CAESAR_EMBEDDED__NATS_PORT',
        path: 'embedded.nats_port',
        message: "expected a whole number, got 'eighty'",
      },
    },
    {
      name: 'bad duration',
      env: { CAESAR_WORKER__GRACE: '-1s' },
      issue: {
        source: 'CAESAR_WORKER__GRACE',
        path: 'worker.grace',
        message:
          "invalid duration '-1s': expected a duration such as 500ms, 5s, 1.5m, 2 hours or 1d, or a number of milliseconds",
      },
    },
    {
      name: 'bad enum',
      env: { CAESAR_LOG__LEVEL: 'verbose' },
      issue: {
        source: 'CAESAR_LOG__LEVEL',
        path: 'log.level',
        message:
          'Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      },
    },
    {
      name: 'bad tool name',
      env: { 'CAESAR_TOOLS__WEB-SEARCH__URL': 'x' },
      issue: {
        source: 'CAESAR_TOOLS__WEB-SEARCH__URL',
        path: 'tools.web-search',
        message: "invalid key 'web-search': tool names match ^[a-z][a-z0-9_]{0,63}$",
      },
    },
    {
      name: 'empty path segment',
      env: { CAESAR_BUS____URL: 'x' },
      issue: {
        source: 'CAESAR_BUS____URL',
        path: 'bus..url',
        message: 'unknown setting (did you mean CAESAR_BUS__URL?)',
      },
    },
  ])('$name', async ({ env, issue }) => {
    expect(await issuesOf(undefined, { env })).toEqual([issue]);
  });

  test('overrides errors name the overrides', async () => {
    expect(await issuesOf(undefined, { overrides: { log: { level: 'loud' as 'info' } } })).toEqual([
      {
        source: 'overrides',
        path: 'log.level',
        message:
          'Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      },
    ]);
  });
});

describe('auth exclusivity', () => {
  test('two auth options in one file are both reported', async () => {
    expect(await issuesOf('bus:\n  token: t\n  creds_file: c.creds\n')).toEqual([
      {
        source: 'FILE:2:10',
        path: 'bus.token',
        message: 'set only one of nkey_seed_file, creds_file, token (also set: creds_file)',
      },
      {
        source: 'FILE:3:15',
        path: 'bus.creds_file',
        message: 'set only one of nkey_seed_file, creds_file, token (also set: token)',
      },
    ]);
  });

  test('the highest source that names an auth method decides it', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'bus:\n  nkey_seed_file: ./seed.nk\n');
    const byEnv = await loadConfig({ env: { CAESAR_BUS__TOKEN: 'tok' }, cwd: dir.path });
    expect(byEnv.busOptions.auth).toEqual({ kind: 'token', token: 'tok' });
    const byFlag = await loadConfig({
      env: { CAESAR_BUS__TOKEN: 'tok' },
      cwd: dir.path,
      overrides: { bus: { creds_file: 'x.creds' } },
    });
    expect(byFlag.busOptions.auth).toEqual({ kind: 'creds', credsFile: `${dir.path}/x.creds` });
    const fileOnly = await loadConfig({ env: {}, cwd: dir.path });
    expect(fileOnly.busOptions.auth).toEqual({ kind: 'nkey', seedFile: `${dir.path}/seed.nk` });
  });

  test('error messages never echo the token', async () => {
    await using dir = await tempDir();
    const err = (await loadConfig({
      // two auth keys in one source remain an error
      env: { CAESAR_BUS__TOKEN: 'secret-token', CAESAR_BUS__CREDS_FILE: 'x' },
      cwd: dir.path,
    }).catch((e: unknown) => e)) as ConfigError;
    expect(err.message).not.toContain('secret-token');
  });
});

describe('all problems at once', () => {
  test('file, env and overrides problems come in one ConfigError, in source order', async () => {
    const issues = await issuesOf('log:\n  level: loud\nbus:\n  urll: x\n', {
      env: { CAESAR_EMBEDDED__NATS_PORT: 'x', CAESAR_WORKERS__HOST: 'h' },
      overrides: { audit: { retention_days: 0 } },
    });
    expect(issues.map((i) => `${i.source} ${i.path}`)).toEqual([
      'FILE:2:10 log.level',
      'FILE:4:3 bus.urll',
      'CAESAR_EMBEDDED__NATS_PORT embedded.nats_port',
      'CAESAR_WORKERS__HOST workers.host',
      'overrides audit.retention_days',
    ]);
  });

  test('a bad file value is reported even when env overrides it', async () => {
    const issues = await issuesOf('embedded:\n  nats_port: -1\n', {
      env: { CAESAR_EMBEDDED__NATS_PORT: '4333' },
    });
    expect(issues).toEqual([
      {
        source: 'FILE:2:14',
        path: 'embedded.nats_port',
        message: 'Too small: expected number to be >=0',
      },
    ]);
  });

  test('the message lists every issue as source: path: message', async () => {
    await using dir = await tempDir();
    const err = (await loadConfig({
      env: { CAESAR_LOG__LEVEL: 'x', CAESAR_NOPE: '1' },
      cwd: dir.path,
    }).catch((e: unknown) => e)) as ConfigError;
    expect(err.name).toBe('ConfigError');
    expect(err.code).toBe('config_invalid');
    expect(err.message.split('\n')).toEqual([
      'invalid configuration (2 problems)',
      '  CAESAR_LOG__LEVEL: log.level: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      '  CAESAR_NOPE: nope: unknown setting',
    ]);
  });
});
