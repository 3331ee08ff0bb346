#!/usr/bin/env node
// Self-setup for `npm start`, `npm test` and `npm run bench` on a fresh clone:
// checks Node, installs npm packages when missing or stale, offers the OS packages
// the stack needs, and builds TypeScript to dist/ (incremental, so a no-op is fast).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg) => console.error(`[setup] ${msg}`);

function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    say(`Node.js >= 20.19 is required, found ${process.versions.node}`);
    process.exit(1);
  }
}

function npmInstallIfStale() {
  const lock = join(root, 'package-lock.json');
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  say('installing npm packages (npm ci)…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}

function onPath(bin) {
  const dirs = (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin', '/sbin']);
  return dirs.some((d) => d && existsSync(join(d, bin)));
}

/** Debian package names for the binaries the stack and its tests run. */
const OS_PACKAGES = {
  'nats-server': 'nats-server',
  radicale: 'radicale',
  sqlite3: 'sqlite3',
  curl: 'curl',
};

/**
 * What each entry point needs on the machine: the stack needs nats-server; the tests also
 * use the sqlite3 shell (audit tamper tests), a real CalDAV server (radicale) and curl (the
 * docs' shell examples, run as written).
 */
const NEEDS = {
  start: ['nats-server'],
  test: ['nats-server', 'sqlite3', 'radicale', 'curl'],
  bench: ['nats-server'],
};

function ensureOsPackages(bins) {
  const missing = bins.filter((b) => !onPath(b));
  if (missing.length === 0) return;
  const pkgs = missing.map((b) => OS_PACKAGES[b]);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !onPath('apt-get')) {
    say(`missing: ${missing.join(', ')}. Install with: sudo apt-get install -y ${pkgs.join(' ')}`);
    return;
  }
  say(`installing ${pkgs.join(' ')} with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', ...pkgs], {
    stdio: 'inherit',
    env,
  });
  if (update.status !== 0 || install.status !== 0) {
    say(`apt-get failed; install by hand: apt-get install -y ${pkgs.join(' ')}`);
  }
}

function build() {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (res.status !== 0) {
    say('TypeScript build failed');
    process.exit(res.status ?? 1);
  }
  // the CLI's bundle, as `npm run build` makes it (ADR 0047)
  const bundle = spawnSync(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (bundle.status !== 0) {
    say('bundling the CLI failed');
    process.exit(bundle.status ?? 1);
  }
}

const purpose = process.argv[2] ?? 'start';
if (!Object.hasOwn(NEEDS, purpose)) {
  say(`unknown purpose '${purpose}'; use one of ${Object.keys(NEEDS).join(', ')}`);
  process.exit(2);
}
checkNode();
npmInstallIfStale();
ensureOsPackages(NEEDS[purpose]);
build();
