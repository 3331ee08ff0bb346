import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureTokensFile } from '../../../src/brain/api/index.js';
import { firstToken } from '../../helpers/tokens.js';

// Issue 15: the docs' `TOKEN=$(…)` line must read the operator token from the tokens file the
// brain writes on first start. An awk matching `/token:/` found the file's own comment
// (`#     token: <32 random bytes, base64url>`) first, and every curl after it got 401.

const DOCS = ['README.md', 'docs/api.md', 'docs/dashboard.md'];

describe("the docs' TOKEN=$(…) line", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-token-line-'));
    await mkdir(join(dir, 'var'), { mode: 0o700 });
    await ensureTokensFile(join(dir, 'var', 'api-tokens.yaml'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test.each(DOCS)('%s: run by sh in the data dir, it prints the operator token', async (doc) => {
    const text = await readFile(new URL(`../../../${doc}`, import.meta.url), 'utf8');
    const lines = text.split('\n').filter((l) => l.startsWith('TOKEN=$('));
    expect(lines.length).toBeGreaterThan(0);
    const expected = await firstToken(join(dir, 'var', 'api-tokens.yaml'));
    for (const line of lines) {
      const out = execFileSync('sh', ['-c', `${line.replace(/\s+#.*$/, '')}\nprintf %s "$TOKEN"`], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect({ line, out }).toEqual({ line, out: expected });
    }
  });
});
