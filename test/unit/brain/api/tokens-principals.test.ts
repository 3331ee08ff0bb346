import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  principalOfToken,
  readTokensFile,
  TokensFileError,
} from '../../../../src/brain/api/tokens-file.js';
import { TokenStore } from '../../../../src/brain/http/token-store.js';
import { tempDir } from '../../../helpers/audit-fixtures.js';

const A = 'abcdefghijklmnopqrstuvwxyz0123456789';
const B = 'ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210';
const C = 'kids-tablet-token-0123456789abcdefgh';

async function read(text: string) {
  using dir = tempDir('caesar-principals-');
  const file = join(dir.path, 'api-tokens.yaml');
  await writeFile(file, text, { mode: 0o600 });
  await chmod(file, 0o600);
  return await readTokensFile(file).then(
    (tokens) => ({ tokens, file }),
    (err: unknown) => ({ err: err as TokensFileError, file }),
  );
}

describe('tokens file principals (ADR 0096)', () => {
  test('a file from before principals loads unchanged, each token its own principal', async () => {
    const got = await read(
      `tokens:\n  - name: operator\n    token: ${A}\n  - name: ci\n    token: ${B}\n    scopes: [invoke]\n`,
    );
    expect('tokens' in got && got.tokens).toEqual([
      { name: 'operator', token: A },
      { name: 'ci', token: B, scopes: ['invoke'] },
    ]);
    if (!('tokens' in got)) return;
    expect(got.tokens.map(principalOfToken)).toEqual([
      { name: 'operator', groups: [] },
      { name: 'ci', groups: [] },
    ]);
  });

  test('reads a principal and groups; two tokens may share one principal', async () => {
    const got = await read(
      [
        'tokens:',
        `  - {name: mum-phone, token: ${A}, principal: mum, groups: [parents]}`,
        `  - {name: mum-laptop, token: ${B}, principal: mum, groups: [parents]}`,
        `  - {name: kids-tablet, token: ${C}, principal: kids_tablet, groups: [kids]}`,
        '',
      ].join('\n'),
    );
    if (!('tokens' in got)) throw got.err;
    const store = TokenStore.from(got.tokens);
    expect(store.verify(A)?.principal).toEqual({ name: 'mum', groups: ['parents'] });
    expect(store.verify(B)?.name).toBe('mum-laptop');
    expect(store.verify(B)?.principal).toEqual({ name: 'mum', groups: ['parents'] });
    expect(store.verify(C)?.principal).toEqual({ name: 'kids_tablet', groups: ['kids'] });
    expect(store.principal('mum')).toEqual({ name: 'mum', groups: ['parents'] });
    expect(store.principal('nobody')).toBeUndefined();
  });

  test.each([
    [
      'an upper-case principal',
      `tokens:\n  - name: a\n    token: ${A}\n    principal: Kids\n`,
      'FILE:4:16: tokens[0].principal: expected 1-64 of a-z, 0-9, `_`, `.`, `-`, starting with a-z or 0-9',
    ],
    [
      'a group listed twice',
      `tokens:\n  - name: a\n    token: ${A}\n    groups: [kids, kids]\n`,
      'FILE:4:13: tokens[0].groups: a group is listed twice',
    ],
    [
      'a group with a space',
      `tokens:\n  - name: a\n    token: ${A}\n    groups: [big kids]\n`,
      'FILE:4:14: tokens[0].groups[0]: expected 1-64 of a-z, 0-9, `_`, `.`, `-`, starting with a-z or 0-9',
    ],
    [
      'seventeen groups',
      `tokens:\n  - name: a\n    token: ${A}\n    groups: [${Array.from({ length: 17 }, (_, i) => `g${i}`).join(', ')}]\n`,
      'FILE:4:13: tokens[0].groups: at most 16 groups',
    ],
    [
      'two tokens of one principal with different groups',
      `tokens:\n  - name: a\n    token: ${A}\n    principal: mum\n    groups: [parents]\n  - name: b\n    token: ${B}\n    principal: mum\n`,
      "FILE:6:11: tokens[1].name: principal 'mum' has groups [parents] on tokens[0]; every token of one principal lists the same groups",
    ],
    [
      'an unknown key',
      `tokens:\n  - name: a\n    token: ${A}\n    group: [kids]\n`,
      "FILE:4:12: tokens[0].group: unknown key 'group'",
    ],
  ])('refuses %s, naming file:line:col and the key path', async (_what, text, issue) => {
    const got = await read(text);
    if (!('err' in got)) throw new Error('expected a failure');
    expect(got.err).toBeInstanceOf(TokensFileError);
    expect(got.err.issues).toEqual([issue.replace('FILE', got.file)]);
    expect(got.err.message).not.toContain(A);
  });
});
