import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { forget, record, STAMP_FILE, upToDate } from '../../../scripts/build-stamp.mjs';

// ADR 0107: scripts/setup.mjs skips tsc and the bundle when dist/ is the build of the
// sources as they are now. Here, a small tree of the same shape as the repository: what
// counts as a change (content, a new file, a touched output) and what does not (a date).

let root: string;

function put(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'caesar-stamp-'));
  put('tsconfig.build.json', JSON.stringify({ include: ['src', 'test/fixtures'] }));
  for (const f of ['tsconfig.json', 'package.json', 'package-lock.json']) put(f, '{}');
  put('node_modules/.package-lock.json', '{"packages":{}}');
  put('scripts/bundle.mjs', '// bundles');
  put('src/a.ts', 'export const a = 1;');
  put('src/deep/b.ts', 'export const b = 2;');
  put('test/fixtures/f.ts', 'export const f = 3;');
  put('dist/src/a.js', 'export const a = 1;');
  put('dist/.tsbuildinfo', '{}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the build stamp', () => {
  test('no stamp: a build is due; after one, dist/ is up to date with every input counted', () => {
    expect(upToDate(root)).toBeUndefined();
    record(root);
    // three sources, and the six files beside tsconfig.build.json's include
    expect(upToDate(root)).toBe(9);
    expect(JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8'))).toMatchObject({
      format: 1,
    });
  });

  test('a source with other bytes is a change, even with its old size and date', () => {
    record(root);
    const file = join(root, 'src', 'a.ts');
    const { atime, mtime } = statSync(file);
    writeFileSync(file, 'export const a = 7;');
    utimesSync(file, atime, mtime);
    expect(upToDate(root)).toBeUndefined();
  });

  test('a new date on the same bytes is no change (a checkout, a copy)', () => {
    record(root);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src', 'deep', 'b.ts'), later, later);
    expect(upToDate(root)).toBe(9);
  });

  test('a source added, a source removed, an installed package changed: each is a change', () => {
    record(root);
    put('src/deep/c.ts', 'export const c = 4;');
    expect(upToDate(root)).toBeUndefined();
    rmSync(join(root, 'src', 'deep', 'c.ts'));
    expect(upToDate(root)).toBe(9);
    rmSync(join(root, 'test', 'fixtures', 'f.ts'));
    expect(upToDate(root)).toBeUndefined();
    put('test/fixtures/f.ts', 'export const f = 3;');
    put('node_modules/.package-lock.json', '{"packages":{"x":{}}}');
    expect(upToDate(root)).toBeUndefined();
  });

  test('an output written or removed by anything else than the build is a change', () => {
    record(root);
    put('dist/src/a.js', 'export const a = 2;');
    expect(upToDate(root)).toBeUndefined();
    record(root);
    rmSync(join(root, 'dist', '.tsbuildinfo'));
    expect(upToDate(root)).toBeUndefined();
  });

  test('forget, an unreadable input or a stamp of another format: a build is due', () => {
    record(root);
    forget(root);
    expect(upToDate(root)).toBeUndefined();
    record(root);
    rmSync(join(root, 'node_modules', '.package-lock.json'));
    expect(upToDate(root)).toBeUndefined();
    put('node_modules/.package-lock.json', '{"packages":{}}');
    expect(upToDate(root)).toBe(9);
    const stamp = JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8')) as object;
    writeFileSync(join(root, STAMP_FILE), JSON.stringify({ ...stamp, format: 2 }));
    expect(upToDate(root)).toBeUndefined();
    put('tsconfig.build.json', '{"include": "src"}');
    expect(upToDate(root)).toBeUndefined();
  });
});
