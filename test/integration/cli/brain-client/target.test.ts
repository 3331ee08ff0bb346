import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadConfig, readRuntimeFile, writeRuntimeFile } from '../../../../src/config/index.js';
import {
  ApiTargetError,
  openApiClient,
  readApiToken,
  resolveApiTarget,
} from '../../../../src/cli/brain-client/target.js';
import { TokensFileError } from '../../../../src/brain/api/tokens-file.js';
import { TOKEN, stackDir, type StackDir } from './brain-stub.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-target-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tokenFile(text: string, mode = 0o600): Promise<string> {
  const file = join(dir, 'api-tokens.yaml');
  await writeFile(file, text);
  await chmod(file, mode);
  return file;
}

const OPS = 'ops-token-0123456789abcdefgh';
const TWO = `tokens:\n  - {name: operator, token: ${TOKEN}}\n  - {name: ops, token: ${OPS}}\n`;
const tok = (name: string) => `${name}-token-0123456789abcdefghij`;

/** The error `p` rejects with: coded, and never carrying a token. */
async function failure(p: Promise<unknown>): Promise<Error & { code: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).not.toContain(TOKEN);
  expect((err as Error).message).not.toContain(OPS);
  return err as Error & { code: string };
}

describe('API tokens file', () => {
  test('without a name the token named operator is used', async () => {
    expect(await readApiToken(await tokenFile(TWO))).toEqual({ name: 'operator', token: TOKEN });
  });

  test('a name picks that token', async () => {
    expect(await readApiToken(await tokenFile(TWO), 'ops')).toEqual({ name: 'ops', token: OPS });
  });

  test('without a name and without operator, the only token is used', async () => {
    const file = await tokenFile(`tokens:\n  - {name: alice, token: ${tok('alice')}}\n`);
    expect(await readApiToken(file)).toEqual({ name: 'alice', token: tok('alice') });
  });

  test.each([
    [
      'several tokens and no operator',
      `tokens:\n  - {name: a, token: ${tok('a')}}\n  - {name: b, token: ${tok('b')}}\n`,
      undefined,
      /no token named operator in .*api-tokens\.yaml \(a, b\); pick one with --token-name$/,
    ],
    ['an unknown name', TWO, 'bob', /no token named 'bob' in .*api-tokens\.yaml \(operator, ops\)/],
    ['no tokens', 'tokens: []\n', undefined, /no token named operator in .* \(it holds none\)$/],
  ])('%s is token_not_found, listing names only', async (_name, text, name, message) => {
    const err = await failure(readApiToken(await tokenFile(text), name));
    expect(err).toBeInstanceOf(ApiTargetError);
    expect(err.code).toBe('token_not_found');
    expect(err.message).toMatch(message);
  });

  test.each([
    ['0644', 0o644],
    ['0640', 0o640],
    ['0604', 0o604],
    ['0660', 0o660],
  ])('a file with mode %s is refused with a chmod 600 hint', async (_label, mode) => {
    const file = await tokenFile(TWO, mode);
    const err = await failure(readApiToken(file));
    expect(err).toBeInstanceOf(TokensFileError);
    expect(err.code).toBe('tokens_file_insecure');
    expect(err.message).toContain(`chmod 600 ${file}`);
  });

  test('a missing file is tokens_file_unreadable naming it', async () => {
    const err = await failure(readApiToken(join(dir, 'nope.yaml')));
    expect(err.code).toBe('tokens_file_unreadable');
    expect(err.message).toContain(join(dir, 'nope.yaml'));
  });

  test.each([
    ['broken YAML', `tokens: [{name: operator, token: ${TOKEN}}\nfoo: : :\n`],
    ['the wrong shape', `tokens:\n  operator: ${TOKEN}\n`],
    ['a short token', 'tokens:\n  - {name: operator, token: short}\n'],
  ])('%s is tokens_file_invalid naming the file, never the token', async (_name, text) => {
    const file = await tokenFile(text);
    const err = await failure(readApiToken(file));
    expect(err.code).toBe('tokens_file_invalid');
    expect(err.message).toContain(file);
  });
});

describe('where chat and invoke talk to', () => {
  let stack: StackDir;
  beforeEach(async () => {
    stack = await stackDir('http://127.0.0.1:9999', TWO);
  });
  afterEach(async () => {
    await stack[Symbol.asyncDispose]();
  });

  test('a live runtime.json supplies the URL, the token file and the token name', async () => {
    const target = await resolveApiTarget({ dataDir: stack.dataDir });
    expect(target).toEqual({
      url: 'http://127.0.0.1:9999',
      token: TOKEN,
      tokenName: 'operator',
      tokenFile: stack.tokenFile,
    });
  });

  test('flags beat runtime.json, each on its own', async () => {
    const other = await tokenFile(`tokens:\n  - {name: ci, token: ${tok('ci')}}\n`);
    const url = await resolveApiTarget({ dataDir: stack.dataDir, apiUrl: 'http://10.0.0.5:1' });
    expect(url).toMatchObject({ url: 'http://10.0.0.5:1', tokenFile: stack.tokenFile });
    const file = await resolveApiTarget({ dataDir: stack.dataDir, tokenFile: other });
    expect(file).toMatchObject({
      url: 'http://127.0.0.1:9999',
      tokenName: 'ci',
      token: tok('ci'),
    });
    const name = await resolveApiTarget({ dataDir: stack.dataDir, tokenName: 'ops' });
    expect(name).toMatchObject({ tokenName: 'ops', token: OPS });
  });

  test("the runtime file's token_name is the default name", async () => {
    const info = (await readRuntimeFile(stack.dataDir))!;
    await writeRuntimeFile(stack.dataDir, { ...info, token_name: 'ops' });
    expect(await resolveApiTarget({ dataDir: stack.dataDir })).toMatchObject({ tokenName: 'ops' });
  });

  test('without runtime.json the config defaults apply and the hint says so', async () => {
    await writeFile(join(dir, 'api-tokens.yaml'), TWO, { mode: 0o600 });
    const target = await resolveApiTarget({ dataDir: dir });
    expect(target).toMatchObject({
      url: 'http://127.0.0.1:8420',
      tokenFile: join(dir, 'api-tokens.yaml'),
      hint: `no runtime.json in ${dir}; is \`caesar up\` running?`,
    });
  });

  test.each([
    ['0.0.0.0', 9001, 'http://127.0.0.1:9001'],
    ['::', 9002, 'http://[::1]:9002'],
    ['brain.lan', 9003, 'http://brain.lan:9003'],
  ])('without runtime.json, api.host %s port %i is reached at %s', async (host, port, url) => {
    await writeFile(join(dir, 'api-tokens.yaml'), TWO, { mode: 0o600 });
    const config = join(dir, 'caesar.yaml');
    await writeFile(config, `api:\n  host: "${host}"\n  port: ${port}\n`);
    expect((await resolveApiTarget({ dataDir: dir, config })).url).toBe(url);
  });

  test('without runtime.json, api.port 0 cannot be reached: say so', async () => {
    const config = join(dir, 'caesar.yaml');
    await writeFile(config, 'api:\n  port: 0\n');
    const err = await failure(resolveApiTarget({ dataDir: dir, config }));
    expect(err.code).toBe('api_url_unknown');
    expect(err.message).toMatch(
      /only runtime\.json knows the port: no runtime\.json in .*; or pass --api-url$/,
    );
  });

  test('an --api-url that is not a URL is api_url_invalid', async () => {
    await writeFile(join(dir, 'api-tokens.yaml'), TWO, { mode: 0o600 });
    const err = await failure(openApiClient({ dataDir: dir, apiUrl: 'not a url' }));
    expect(err.code).toBe('api_url_invalid');
  });

  test('a stale runtime.json is ignored and named in the hint', async () => {
    const info = (await readRuntimeFile(stack.dataDir))!;
    const { pid } = spawnSync(process.execPath, ['-e', '']);
    await writeRuntimeFile(stack.dataDir, { ...info, pid });
    const target = await resolveApiTarget({ dataDir: stack.dataDir });
    expect(target.url).toBe('http://127.0.0.1:8420');
    expect(target.hint).toBe(`stale runtime.json from pid ${pid}; is \`caesar up\` running?`);
  });

  test('no runtime.json and no tokens file: stack_not_found, leading with the missing stack', async () => {
    const err = await failure(resolveApiTarget({ dataDir: dir }));
    expect(err.code).toBe('stack_not_found');
    expect(err.message).toBe(
      `no runtime.json in ${dir}; is \`caesar up\` running? (API tokens file ${join(dir, 'api-tokens.yaml')}: does not exist)`,
    );
  });

  test('a --token-file that does not exist is named as given', async () => {
    const file = join(dir, 'given.yaml');
    const err = await failure(resolveApiTarget({ dataDir: dir, tokenFile: file }));
    expect(err.code).toBe('tokens_file_unreadable');
    expect(err.message).not.toContain('runtime.json');
  });
});

describe('legion, audit and policy commands find the running stack', () => {
  let stack: StackDir;
  beforeEach(async () => {
    stack = await stackDir('http://127.0.0.1:9999');
  });
  afterEach(async () => {
    await stack[Symbol.asyncDispose]();
  });

  const config = (env: Record<string, string> = {}) =>
    loadConfig({ env, cwd: dir, overrides: { data_dir: stack.dataDir }, runningStack: true });
  /** The three settings runtime.json may supply, as the loaded config holds them. */
  const stackSettings = (c: Awaited<ReturnType<typeof config>>) => ({
    nats_url: c.bus.servers.join(','),
    audit_db: c.audit.file,
    policy_file: c.policy.file,
  });

  test('with nothing configured, runtime.json supplies NATS URL, audit db and policy file', async () => {
    expect(stackSettings(await config())).toEqual({
      nats_url: 'nats://127.0.0.1:1',
      audit_db: join(stack.dataDir, 'audit.db'),
      policy_file: join(stack.dataDir, 'policy.yaml'),
    });
  });

  test.each([
    ['nats_url', 'CAESAR_BUS__URL', 'nats://nats.lan:4222'],
    ['audit_db', 'CAESAR_AUDIT__FILE', '/srv/audit.db'],
    ['policy_file', 'CAESAR_POLICY__FILE', '/srv/policy.yaml'],
  ] as const)('a configured %s (%s) beats runtime.json', async (setting, name, value) => {
    expect(stackSettings(await config({ [name]: value }))[setting]).toBe(value);
  });

  test('a data dir without runtime.json supplies nothing', async () => {
    const c = await loadConfig({ env: {}, cwd: dir, runningStack: true });
    expect(c.bus.servers).toEqual(['nats://127.0.0.1:4222']);
  });
});
