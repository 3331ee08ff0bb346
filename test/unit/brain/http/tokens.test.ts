import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  API_SCOPES,
  ensureTokensFile,
  readTokensFile,
  TokensFileError,
} from '../../../../src/brain/api/tokens-file.js';
import { loadTokens, TokenStore } from '../../../../src/brain/http/token-store.js';
import { tempDir } from '../../../helpers/audit-fixtures.js';

const GOOD = 'abcdefghijklmnopqrstuvwxyz0123456789';
const OTHER = 'ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210';

/** Writes `text` as a 0600 tokens file in `dir` and returns its path. */
async function tokensFile(dir: string, text: string, mode = 0o600): Promise<string> {
  const file = join(dir, 'api-tokens.yaml');
  await writeFile(file, text, { mode });
  await chmod(file, mode);
  return file;
}

async function failure(file: string): Promise<TokensFileError> {
  const err = await readTokensFile(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TokensFileError);
  return err as TokensFileError;
}

describe('ensureTokensFile', () => {
  test('creates a 0600 file with one operator token under a new 0700 directory', async () => {
    using dir = tempDir('caesar-http-');
    const file = join(dir.path, 'state', 'api-tokens.yaml');
    expect(await ensureTokensFile(file)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir.path, 'state'))).mode & 0o777).toBe(0o700);
    const tokens = await readTokensFile(file);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.name).toBe('operator');
    expect(tokens[0]?.token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
    const store = await loadTokens(file);
    expect(store.verify(tokens[0]!.token)?.name).toBe('operator');
    expect(tokens[0]?.scopes).toBeUndefined(); // the operator may use every route
  });

  test('leaves an existing file alone and says it did not create it', async () => {
    using dir = tempDir('caesar-http-');
    const file = join(dir.path, 'api-tokens.yaml');
    await ensureTokensFile(file);
    const before = await readFile(file, 'utf8');
    expect(await ensureTokensFile(file)).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  test('two new files get different tokens', async () => {
    using dir = tempDir('caesar-http-');
    await ensureTokensFile(join(dir.path, 'a.yaml'));
    await ensureTokensFile(join(dir.path, 'b.yaml'));
    const [a] = await readTokensFile(join(dir.path, 'a.yaml'));
    const [b] = await readTokensFile(join(dir.path, 'b.yaml'));
    expect(a?.token).not.toBe(b?.token);
  });
});

describe('readTokensFile', () => {
  test('reads scopes when a token lists them', async () => {
    using dir = tempDir('caesar-http-');
    const file = await tokensFile(
      dir.path,
      `tokens:\n  - name: tablet\n    token: ${GOOD}\n    scopes: [chat, confirm]\n`,
    );
    expect(await readTokensFile(file)).toEqual([
      { name: 'tablet', token: GOOD, scopes: ['chat', 'confirm'] },
    ]);
  });

  test('reads named tokens in file order', async () => {
    using dir = tempDir('caesar-http-');
    const file = await tokensFile(
      dir.path,
      `tokens:\n  - name: operator\n    token: ${GOOD}\n  - name: home.assistant_1\n    token: ${OTHER}\n`,
    );
    expect(await readTokensFile(file)).toEqual([
      { name: 'operator', token: GOOD },
      { name: 'home.assistant_1', token: OTHER },
    ]);
  });

  test.each([0o644, 0o640, 0o604, 0o660, 0o602])(
    'refuses a file with mode %o and says chmod 600 <file>',
    async (mode) => {
      using dir = tempDir('caesar-http-');
      const file = await tokensFile(dir.path, `tokens:\n  - name: a\n    token: ${GOOD}\n`, mode);
      const err = await failure(file);
      expect(err.code).toBe('tokens_file_insecure');
      expect(err.message).toContain(file);
      expect(err.message).toContain(`chmod 600 ${file}`);
    },
  );

  test.each([
    [
      'a duplicate name',
      `tokens:\n  - name: ops\n    token: ${GOOD}\n  - name: ops\n    token: ${OTHER}\n`,
      [`FILE:4:11: tokens[1].name: duplicate name 'ops' (also tokens[0])`],
    ],
    [
      'a duplicate token value',
      `tokens:\n  - name: a\n    token: ${GOOD}\n  - name: b\n    token: ${GOOD}\n`,
      ['FILE:5:12: tokens[1].token: same token value as tokens[0]'],
    ],
    [
      'a short token',
      'tokens:\n  - name: a\n    token: short-token-12345\n',
      [
        'FILE:3:12: tokens[0].token: too short: at least 24 characters (32 random bytes, base64url)',
      ],
    ],
    [
      'a token with a space',
      `tokens:\n  - name: a\n    token: "${GOOD} x"\n`,
      [
        'FILE:3:12: tokens[0].token: expected letters, digits and `-._~+/` (optionally `=` padding)',
      ],
    ],
    [
      'an upper-case name',
      `tokens:\n  - name: Ops\n    token: ${GOOD}\n`,
      [
        'FILE:2:11: tokens[0].name: expected 1-64 of a-z, 0-9, `_`, `.`, `-`, starting with a-z or 0-9',
      ],
    ],
    [
      'a name with a colon',
      `tokens:\n  - name: "token:ops"\n    token: ${GOOD}\n`,
      [
        'FILE:2:11: tokens[0].name: expected 1-64 of a-z, 0-9, `_`, `.`, `-`, starting with a-z or 0-9',
      ],
    ],
    [
      'a numeric token',
      'tokens:\n  - name: a\n    token: 123456789012345678901234567890\n',
      ['FILE:3:12: tokens[0].token: expected string, received number'],
    ],
    [
      'an unknown key',
      `tokens:\n  - name: a\n    token: ${GOOD}\n    role: admin\n`,
      ["FILE:4:11: tokens[0].role: unknown key 'role'"],
    ],
    [
      'no tokens key',
      'keys: []\n',
      [
        'FILE:1:1: tokens: expected a list of {name, token, scopes?, principal?, groups?}',
        "FILE:1:7: keys: unknown key 'keys'",
      ],
    ],
    [
      'an empty file',
      '',
      ['FILE:1:1: tokens: expected a list of {name, token, scopes?, principal?, groups?}'],
    ],
    [
      'an unknown scope',
      `tokens:\n  - name: a\n    token: ${GOOD}\n    scopes: [chat, admin]\n`,
      [
        'FILE:4:20: tokens[0].scopes[1]: expected one of chat, invoke, confirm, read, audit, metrics',
      ],
    ],
    [
      'an empty scope list',
      `tokens:\n  - name: a\n    token: ${GOOD}\n    scopes: []\n`,
      [
        'FILE:4:13: tokens[0].scopes: a token with no scope can do nothing: remove the token, or list its scopes',
      ],
    ],
    [
      'a scope listed twice',
      `tokens:\n  - name: a\n    token: ${GOOD}\n    scopes: [chat, chat]\n`,
      ['FILE:4:13: tokens[0].scopes: a scope is listed twice'],
    ],
    [
      'scopes as a string',
      `tokens:\n  - name: a\n    token: ${GOOD}\n    scopes: chat\n`,
      [
        'FILE:4:13: tokens[0].scopes: expected a list of scopes (chat, invoke, confirm, read, audit, metrics)',
      ],
    ],
    [
      'bad YAML',
      `tokens:\n  - name: a\n    token: ${GOOD}: x\n`,
      ['FILE:3:48: YAML: bad indentation of a mapping entry'],
    ],
    [
      'a duplicate key',
      `tokens:\n  - name: a\n    name: b\n    token: ${GOOD}\n`,
      ['FILE:3:5: YAML: duplicated mapping key'],
    ],
  ])('refuses %s, naming file, line and key path', async (_why, text, issues) => {
    using dir = tempDir('caesar-http-');
    const file = await tokensFile(dir.path, text);
    const err = await failure(file);
    expect(err.code).toBe('tokens_file_invalid');
    expect(err.issues.map((i) => i.replace(file, 'FILE'))).toEqual(issues);
    expect(err.message).toContain(file);
    expect(err.message).not.toContain(GOOD);
  });

  test('an empty token list is valid (nobody can call; loopback only)', async () => {
    using dir = tempDir('caesar-http-');
    const file = await tokensFile(dir.path, 'tokens: []\n');
    expect((await loadTokens(file)).size).toBe(0);
  });

  test('a missing file is tokens_file_unreadable naming it', async () => {
    using dir = tempDir('caesar-http-');
    const file = join(dir.path, 'nope.yaml');
    const err = await failure(file);
    expect(err.code).toBe('tokens_file_unreadable');
    expect(err.message).toBe(`API tokens file ${file}: does not exist`);
  });

  test('aliases are refused (no entity expansion)', async () => {
    using dir = tempDir('caesar-http-');
    const file = await tokensFile(dir.path, `tokens:\n  - &t {name: a, token: ${GOOD}}\n  - *t\n`);
    expect((await failure(file)).code).toBe('tokens_file_invalid');
  });
});

describe('TokenStore', () => {
  const store = TokenStore.from([
    { name: 'operator', token: GOOD },
    { name: 'ci', token: OTHER },
  ]);

  test.each([
    ['the first token', GOOD, 'operator'],
    ['the second token', OTHER, 'ci'],
    ['a prefix of a token', GOOD.slice(0, -1), undefined],
    ['a token plus a character', `${GOOD}x`, undefined],
    ['a token in another case', GOOD.toUpperCase(), undefined],
    ['the empty string', '', undefined],
    ['a 5000-character value', 'x'.repeat(5000), undefined],
  ])('verify(%s) is %s', (_what, bearer, name) => {
    expect(store.verify(bearer)?.name).toBe(name);
  });

  test('a token without scopes has every scope; a listed one only its own', () => {
    const scoped = TokenStore.from([
      { name: 'operator', token: GOOD },
      { name: 'tablet', token: OTHER, scopes: ['chat'] },
    ]);
    expect([...(scoped.verify(GOOD)?.scopes ?? [])]).toEqual([...API_SCOPES]);
    expect([...(scoped.verify(OTHER)?.scopes ?? [])]).toEqual(['chat']);
  });

  test('keeps names, not values', () => {
    expect(store.names).toEqual(['operator', 'ci']);
    expect(store.size).toBe(2);
    expect(JSON.stringify(store)).not.toContain(GOOD);
  });

  test('refuses duplicate names or values', () => {
    expect(() =>
      TokenStore.from([
        { name: 'a', token: GOOD },
        { name: 'a', token: OTHER },
      ]),
    ).toThrow(/duplicate API token name 'a'/);
    expect(() =>
      TokenStore.from([
        { name: 'a', token: GOOD },
        { name: 'b', token: GOOD },
      ]),
    ).toThrow(/reuses/);
  });
});
