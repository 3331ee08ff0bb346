import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isBundleFresh } from '../../../src/process/bundle-fresh.js';

let dir: string;
const url = (name: string) => pathToFileURL(join(dir, name));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-bundle-fresh-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function files(times: { bundle?: number; compiled?: number }): Promise<void> {
  for (const [name, at] of Object.entries(times)) {
    await writeFile(join(dir, name), '');
    await utimes(join(dir, name), at, at);
  }
}

test.each([
  ['made after the last compile', { bundle: 2000, compiled: 1000 }, true],
  ['made in the same second as the compile', { bundle: 1000, compiled: 1000 }, true],
  ['older than the last compile: tsc ran after it', { bundle: 1000, compiled: 2000 }, false],
  ['without a compile record', { bundle: 1000 }, true],
  ['missing', { compiled: 1000 }, false],
])('a bundle %s runs: %s', async (_what, times, fresh) => {
  await rm(join(dir, 'bundle'), { force: true });
  await rm(join(dir, 'compiled'), { force: true });
  await files(times);
  expect(isBundleFresh(url('bundle'), url('compiled'))).toBe(fresh);
});
