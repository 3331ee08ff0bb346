import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, type ConfigIssue } from '../../../src/config/index.js';
import { envTarget } from '../../../src/config/env.js';
import { MAX_SECRET_FILE_BYTES } from '../../../src/config/secret-file.js';
import { tempDir, type TempDir } from '../../unit/config/temp-dir.js';

/** A value that must never show up in an error. */
const SECRET = 'hunter2-Zq8vX';

async function issuesOf(dir: TempDir, env: Record<string, string>): Promise<ConfigIssue[]> {
  const err = await loadConfig({ env, cwd: dir.path }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).message).not.toContain(SECRET);
  return [...(err as ConfigError).issues];
}

describe('CAESAR_<KEY>_FILE reads a secret key from a file', () => {
  test.each([
    { content: `${SECRET}\n`, value: SECRET },
    { content: `${SECRET}\r\n`, value: SECRET },
    { content: SECRET, value: SECRET },
    { content: `${SECRET}\n\n`, value: `${SECRET}\n` },
    { content: ` ${SECRET} \n`, value: ` ${SECRET} ` },
  ])('file content $content gives bus.token $value', async ({ content, value }) => {
    await using dir = await tempDir();
    const file = await dir.write('nats_token', content);
    const config = await loadConfig({ env: { CAESAR_BUS__TOKEN_FILE: file }, cwd: dir.path });
    expect(config.bus.token).toBe(value);
    expect(config.busOptions.auth).toEqual({ kind: 'token', token: value });
  });

  test('a relative path resolves against the working directory', async () => {
    await using dir = await tempDir();
    await dir.write('secrets/nats_token', SECRET);
    const config = await loadConfig({
      env: { CAESAR_BUS__TOKEN_FILE: 'secrets/nats_token' },
      cwd: dir.path,
    });
    expect(config.bus.token).toBe(SECRET);
  });

  test('a file of exactly 64 KiB is read', async () => {
    await using dir = await tempDir();
    const file = await dir.write('big', 'x'.repeat(MAX_SECRET_FILE_BYTES));
    const config = await loadConfig({ env: { CAESAR_BUS__TOKEN_FILE: file }, cwd: dir.path });
    expect(config.bus.token).toHaveLength(MAX_SECRET_FILE_BYTES);
  });

  test('an empty _FILE var unsets the key, so the file layer value applies', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'bus:\n  token: from-yaml\n');
    const config = await loadConfig({ env: { CAESAR_BUS__TOKEN_FILE: '' }, cwd: dir.path });
    expect(config.bus.token).toBeUndefined();
  });

  test('a secret from a file replaces an auth method named in caesar.yaml', async () => {
    await using dir = await tempDir();
    await dir.write('caesar.yaml', 'bus:\n  nkey_seed_file: ./seed.nk\n');
    const file = await dir.write('tok', SECRET);
    const config = await loadConfig({ env: { CAESAR_BUS__TOKEN_FILE: file }, cwd: dir.path });
    expect(config.busOptions.auth).toEqual({ kind: 'token', token: SECRET });
  });
});

describe('a name that is itself a key stays that key', () => {
  test('CAESAR_BUS__NKEY_SEED_FILE is bus.nkey_seed_file, a path that is not read', async () => {
    await using dir = await tempDir();
    const config = await loadConfig({
      env: { CAESAR_BUS__NKEY_SEED_FILE: 'missing/seed.nk' },
      cwd: dir.path,
    });
    expect(config.bus.nkeySeedFile).toBe(join(dir.path, 'missing', 'seed.nk'));
    expect(config.bus.token).toBeUndefined();
  });

  test.each([
    ['CAESAR_BUS__NKEY_SEED_FILE', { path: ['bus', 'nkey_seed_file'], fromFile: false }],
    ['CAESAR_BUS__CREDS_FILE', { path: ['bus', 'creds_file'], fromFile: false }],
    ['CAESAR_BUS__TOKEN_FILE', { path: ['bus', 'token'], fromFile: true }],
    [
      'CAESAR_TOOLS__WEB_SEARCH__API_KEY_FILE',
      { path: ['tools', 'web_search', 'api_key'], fromFile: true },
    ],
    [
      'CAESAR_TOOLS__X__AUTH__PASSWORD_FILE',
      { path: ['tools', 'x', 'auth', 'password'], fromFile: true },
    ],
    [
      'CAESAR_TOOLS__CALENDAR_READ__CA_FILE',
      { path: ['tools', 'calendar_read', 'ca_file'], fromFile: false },
    ],
    ['CAESAR_TOOLS__X___FILE', { path: ['tools', 'x', '_file'], fromFile: false }],
  ])('%s targets %j', (name, target) => {
    expect(envTarget(name)).toMatchObject(target);
  });
});

describe('tool sections', () => {
  test('a credential _FILE under tools fills the key without _file; other _file keys pass as written', async () => {
    await using dir = await tempDir();
    const key = await dir.write('brave', `${SECRET}\n`);
    const password = await dir.write('caldav', 'p4ss\n');
    const config = await loadConfig({
      env: {
        CAESAR_TOOLS__WEB_SEARCH__API_KEY_FILE: key,
        CAESAR_TOOLS__CALENDAR_READ__AUTH__PASSWORD_FILE: password,
        CAESAR_TOOLS__CALENDAR_READ__CA_FILE: '/etc/ssl/ca.pem',
      },
      cwd: dir.path,
    });
    expect(config.tools).toEqual({
      web_search: { api_key: SECRET },
      calendar_read: { auth: { password: 'p4ss' }, ca_file: '/etc/ssl/ca.pem' },
    });
  });
});

describe('errors name the variable and the file, never the value', () => {
  test.each([
    { name: 'missing file', make: null, message: (f: string) => `secret file ${f} does not exist` },
    { name: 'empty file', make: '', message: (f: string) => `secret file ${f} is empty` },
    { name: 'only a newline', make: '\n', message: (f: string) => `secret file ${f} is empty` },
    {
      name: 'file over 64 KiB',
      make: SECRET.padEnd(MAX_SECRET_FILE_BYTES + 1, 'x'),
      message: (f: string) => `secret file ${f} is larger than 65536 bytes`,
    },
  ])('$name', async ({ make, message }) => {
    await using dir = await tempDir();
    const file = join(dir.path, 'nats_token');
    if (make !== null) await dir.write('nats_token', make);
    expect(await issuesOf(dir, { CAESAR_BUS__TOKEN_FILE: file })).toEqual([
      { source: 'CAESAR_BUS__TOKEN_FILE', path: 'bus.token', message: message(file) },
    ]);
  });

  test('a directory is not a secret file', async () => {
    await using dir = await tempDir();
    expect(await issuesOf(dir, { CAESAR_BUS__TOKEN_FILE: dir.path })).toEqual([
      {
        source: 'CAESAR_BUS__TOKEN_FILE',
        path: 'bus.token',
        message: `secret file ${dir.path} is not a regular file`,
      },
    ]);
  });

  test('a FIFO is refused at once instead of waiting for a writer', async () => {
    await using dir = await tempDir();
    const fifo = join(dir.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await issuesOf(dir, { CAESAR_BUS__TOKEN_FILE: fifo })).toEqual([
      {
        source: 'CAESAR_BUS__TOKEN_FILE',
        path: 'bus.token',
        message: `secret file ${fifo} is not a regular file`,
      },
    ]);
  });

  test('setting a key and its _FILE var is an error naming both', async () => {
    await using dir = await tempDir();
    const file = await dir.write('tok', SECRET);
    const env = { CAESAR_BUS__TOKEN: 'other', CAESAR_BUS__TOKEN_FILE: file };
    expect(await issuesOf(dir, env)).toEqual([
      {
        source: 'CAESAR_BUS__TOKEN_FILE',
        path: 'bus.token',
        message: 'set only one of CAESAR_BUS__TOKEN and CAESAR_BUS__TOKEN_FILE',
      },
    ]);
  });

  test('the same holds under tools', async () => {
    await using dir = await tempDir();
    const file = await dir.write('key', SECRET);
    const env = {
      CAESAR_TOOLS__WEB_SEARCH__API_KEY: 'k',
      CAESAR_TOOLS__WEB_SEARCH__API_KEY_FILE: file,
    };
    expect(await issuesOf(dir, env)).toEqual([
      {
        source: 'CAESAR_TOOLS__WEB_SEARCH__API_KEY_FILE',
        path: 'tools.web_search.api_key',
        message:
          'set only one of CAESAR_TOOLS__WEB_SEARCH__API_KEY and CAESAR_TOOLS__WEB_SEARCH__API_KEY_FILE',
      },
    ]);
  });

  test('a key that is not a secret cannot come from a file', async () => {
    await using dir = await tempDir();
    const [issue] = await issuesOf(dir, { CAESAR_BUS__URL_FILE: '/x' });
    expect(issue).toMatchObject({ source: 'CAESAR_BUS__URL_FILE', path: 'bus.url_file' });
    expect(issue?.message).toMatch(/^CAESAR_BUS__URL is not a secret; .*CAESAR_BUS__TOKEN_FILE/);
  });

  test('a rule broken by the value read from a file names the variable, not the value', async () => {
    await using dir = await tempDir();
    const file = await dir.write('tok', SECRET);
    const issues = await issuesOf(dir, {
      CAESAR_BUS__TOKEN_FILE: file,
      CAESAR_BUS__CREDS_FILE: 'w.creds',
    });
    expect(issues.map((i) => `${i.source} ${i.path}`).sort()).toEqual([
      'CAESAR_BUS__CREDS_FILE bus.creds_file',
      'CAESAR_BUS__TOKEN_FILE bus.token',
    ]);
  });
});
