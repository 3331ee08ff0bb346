import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { STAMP_FILE } from '../../../scripts/build-stamp.mjs';
import { ROOT } from '../../helpers/doc-blocks.js';

// Issue 29, point 3: `npm start` on a fresh clone said `installing npm packages (npm ci)…`
// and then nothing for minutes. scripts/setup.mjs runs here as `npm start` runs it, in a copy
// of the repository, and each phase it runs must say so and end with its elapsed time.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the repository's scripts and build inputs; sources and node_modules linked. */
function copyRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'caesar-setup-'));
  dirs.push(dir);
  // setup.mjs finds the root from its own path, so the scripts are real copies
  cpSync(join(ROOT, 'scripts'), join(dir, 'scripts'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(ROOT, f), join(dir, f));
  }
  for (const d of ['src', 'workers', 'bench']) symlinkSync(join(ROOT, d), join(dir, d));
  mkdirSync(join(dir, 'test'));
  symlinkSync(join(ROOT, 'test', 'fixtures'), join(dir, 'test', 'fixtures'));
  return dir;
}

/**
 * The repository's dist/ in the copy, as a clone that was built before: the incremental tsc
 * then checks and emits nothing (a few seconds) instead of compiling everything (~25 s of CPU,
 * a minute or more on a busy machine). Its build info names node_modules relative to dist/
 * (`../node_modules/...`); the copy reaches them through the link, whose real path tsc
 * records, so those names are rewritten to that path. Were the format ever different, tsc
 * would only compile everything again: the phases and their lines stay the same.
 */
function copyBuild(dir: string): void {
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  // built by `npm run build`, which writes no stamp: setup must build (ADR 0107)
  rmSync(join(dir, STAMP_FILE), { force: true });
  const info = join(dir, 'dist', '.tsbuildinfo');
  const linked = relative(join(dir, 'dist'), realpathSync(join(ROOT, 'node_modules')));
  writeFileSync(
    info,
    readFileSync(info, 'utf8').replaceAll('"../node_modules/', `"${linked.split(sep).join('/')}/`),
  );
}

/** A package without dependencies, and its lock: npm ci has nothing to fetch. */
function writeEmptyPackage(dir: string): void {
  const name = 'caesar-setup-test';
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '0.0.0', private: true }),
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      name,
      version: '0.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name, version: '0.0.0' } },
    }),
  );
}

interface Run {
  status: number | null;
  lines: string[];
}

function runSetup(dir: string, purpose: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dir, 'scripts', 'setup.mjs'), purpose], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, lines: out.split('\n') }));
  });
}

/** `0.4 s`, `45 s`, `2 min 05 s`. */
const ELAPSED = String.raw`(\d+\.\d s|\d+ s|\d+ min \d\d s)`;

describe('scripts/setup.mjs', () => {
  test('with node_modules up to date: the build and the bundle, each with its time', async () => {
    const dir = copyRepo();
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    // the lock older than node_modules' own copy, so npm ci is not due. A second before it:
    // a Stats date is rounded to the nearest ms, so the marker's own date may lie after it
    cpSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
    const marker = statSync(join(ROOT, 'node_modules', '.package-lock.json'));
    const before = new Date(Math.floor(marker.mtimeMs) - 1000);
    utimesSync(join(dir, 'package-lock.json'), before, before);
    copyBuild(dir);
    const run = await runSetup(dir, 'start');
    const setup = run.lines.filter((l) => l.startsWith('[setup]'));
    expect(run.status, run.lines.join('\n')).toBe(0);
    expect(setup).toEqual([
      '[setup] build (tsc, incremental)…',
      ...setup.filter((l) => /^\[setup\] build \(tsc, incremental\): \d.*…$/.test(l)),
      expect.stringMatching(
        new RegExp(String.raw`^\[setup\] build \(tsc, incremental\): done in ${ELAPSED}$`),
      ),
      '[setup] bundle (the CLI and the threads, rolldown)…',
      ...setup.filter((l) =>
        /^\[setup\] bundle \(the CLI and the threads, rolldown\): \d.*…$/.test(l),
      ),
      expect.stringMatching(
        new RegExp(
          String.raw`^\[setup\] bundle \(the CLI and the threads, rolldown\): done in ${ELAPSED}$`,
        ),
      ),
      expect.stringMatching(new RegExp(String.raw`^\[setup\] ready in ${ELAPSED}$`)),
    ]);

    // the same sources again: no tsc, no bundle, and the one line that says why (ADR 0107)
    const again = await runSetup(dir, 'start');
    expect(again.status, again.lines.join('\n')).toBe(0);
    expect(again.lines.filter((l) => l.startsWith('[setup]'))).toEqual([
      expect.stringMatching(
        /^\[setup\] build: dist\/ is up to date with its \d+ input files; skipped \(npm run build builds anyway\)$/,
      ),
      expect.stringMatching(new RegExp(String.raw`^\[setup\] ready in ${ELAPSED}$`)),
    ]);
  }, 600_000);

  test('with a lock newer than node_modules: npm ci runs as a phase with its time', async () => {
    const dir = copyRepo();
    // a package without dependencies: npm ci has nothing to fetch, and then no tsc to build
    writeEmptyPackage(dir);
    const run = await runSetup(dir, 'start');
    const setup = run.lines.filter((l) => l.startsWith('[setup]'));
    expect(setup[0], run.lines.join('\n')).toBe('[setup] npm ci (installing npm packages)…');
    expect(setup).toContainEqual(
      expect.stringMatching(
        new RegExp(String.raw`^\[setup\] npm ci \(installing npm packages\): done in ${ELAPSED}$`),
      ),
    );
    // no typescript in this copy: the build fails, and says after how long
    expect(setup).toContainEqual(
      expect.stringMatching(
        new RegExp(String.raw`^\[setup\] build \(tsc, incremental\): failed after ${ELAPSED}$`),
      ),
    );
    expect(run.status).not.toBe(0);
  }, 120_000);

  test('with node_modules a link and a lock newer than it: no npm ci, which would empty the directory linked to', async () => {
    const dir = copyRepo();
    const elsewhere = mkdtempSync(join(tmpdir(), 'caesar-setup-modules-'));
    dirs.push(elsewhere);
    writeFileSync(join(elsewhere, '.package-lock.json'), '{}');
    writeFileSync(join(elsewhere, 'kept'), 'another checkout uses this');
    symlinkSync(elsewhere, join(dir, 'node_modules'));
    // no dependencies: were npm ci to run, it would empty `elsewhere` and finish at once
    writeEmptyPackage(dir);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(elsewhere, '.package-lock.json'), old, old);
    const run = await runSetup(dir, 'start');
    const setup = run.lines.filter((l) => l.startsWith('[setup]'));
    expect(setup[0], run.lines.join('\n')).toBe(
      `[setup] node_modules is a link to ${elsewhere}, older than package-lock.json: npm ci ` +
        'would empty the directory it points to, so it is left as it is (run npm ci there if ' +
        'packages are missing)',
    );
    expect(setup.some((l) => l.includes('npm ci (installing'))).toBe(false);
    expect(readFileSync(join(elsewhere, 'kept'), 'utf8')).toBe('another checkout uses this');
  }, 120_000);
});
