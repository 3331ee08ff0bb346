#!/usr/bin/env node
// Self-setup for `npm start`, `npm test` and `npm run bench` on a fresh clone:
// checks Node, installs npm packages when missing or stale, offers the OS packages
// the stack needs, and builds TypeScript to dist/ unless dist/ already holds the build of
// the sources as they are (scripts/build-stamp.mjs, ADR 0107).
// Each phase that runs says so, says every 15 s that it still runs (npm ci: what it is
// doing), and ends with its elapsed time (scripts/setup-progress.mjs).
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forget, record, upToDate } from './build-stamp.mjs';
import { formatElapsed, npmActivity, startPhase } from './setup-progress.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg) => console.error(`[setup] ${msg}`);
/** Control characters (an escape sequence) of a child's output never reach the terminal raw. */
const printable = (line) =>
  Array.from(line, (c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 && c !== '\t') || code === 0x7f ? '?' : c;
  }).join('');

/** Runs a command; resolves to its exit status. `onLine` takes its output when given. */
function run(cmd, args, { env, onLine } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: root,
      env: env ?? process.env,
      stdio: onLine === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    if (onLine !== undefined) {
      for (const stream of [child.stdout, child.stderr]) {
        let rest = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) onLine(line);
        });
        stream.on('end', () => rest !== '' && onLine(rest));
      }
    }
    child.on('error', (err) => {
      say(`could not run ${cmd}: ${err.message}`);
      resolve(127);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    say(`Node.js >= 20.19 is required, found ${process.versions.node}`);
    process.exit(1);
  }
}

/** npm's own lines that reach the terminal as they come; the rest shows only on failure. */
const NPM_SHOWN = /^(npm (warn|error|ERR!)|added \d+ packages?)/;
/** How many lines of npm's output a failure shows. */
const NPM_TAIL_LINES = 60;

async function npmInstallIfStale() {
  const lock = join(root, 'package-lock.json');
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // npm ci empties node_modules before it installs: through a link, that is the directory the
  // link points to, which another checkout may be using at this moment
  const modules = join(root, 'node_modules');
  if (lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) {
    say(
      `node_modules is a link to ${printable(readlinkSync(modules))}, older than package-lock.json: ` +
        'npm ci would empty the directory it points to, so it is left as it is ' +
        '(run npm ci there if packages are missing)',
    );
    return;
  }
  const phase = startPhase('npm ci (installing npm packages)', { say });
  const activity = npmActivity();
  phase.doing('fetching and unpacking the packages package-lock.json lists');
  const tail = [];
  const status = await run('npm', ['ci', '--no-audit', '--no-fund', '--foreground-scripts'], {
    onLine: (raw) => {
      const line = printable(raw.slice(0, 2000));
      tail.push(line);
      if (tail.length > NPM_TAIL_LINES) tail.shift();
      if (NPM_SHOWN.test(line)) console.error(line);
      const doing = activity.read(line);
      if (doing !== undefined) phase.doing(doing);
    },
  });
  if (status !== 0) {
    phase.failed();
    console.error(tail.join('\n'));
    say(`npm ci exited with ${status}; its last lines are above`);
    process.exit(status);
  }
  phase.done();
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

async function ensureOsPackages(bins) {
  const missing = bins.filter((b) => !onPath(b));
  if (missing.length === 0) return;
  const pkgs = missing.map((b) => OS_PACKAGES[b]);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !onPath('apt-get')) {
    say(`missing: ${missing.join(', ')}. Install with: sudo apt-get install -y ${pkgs.join(' ')}`);
    return;
  }
  const phase = startPhase(`apt-get (installing ${pkgs.join(' ')})`, { say });
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = await run('apt-get', ['update', '-qq'], { env });
  const install = await run('apt-get', ['install', '-y', '-qq', ...pkgs], { env });
  if (update !== 0 || install !== 0) {
    phase.failed();
    say(`apt-get failed; install by hand: apt-get install -y ${pkgs.join(' ')}`);
    return;
  }
  phase.done();
}

async function build() {
  const unchanged = upToDate(root);
  if (unchanged !== undefined) {
    say(
      `build: dist/ is up to date with its ${unchanged} input files; skipped ` +
        '(npm run build builds anyway)',
    );
    return;
  }
  forget(root);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const compile = startPhase('build (tsc, incremental)', { say });
  const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.build.json']);
  if (compiled !== 0) {
    compile.failed();
    say('TypeScript build failed');
    process.exit(compiled);
  }
  compile.done();
  // the bundles of the CLI and of the threads, as `npm run build` makes them (ADR 0047, 0104)
  const bundle = startPhase('bundle (the CLI and the threads, rolldown)', { say });
  const bundled = await run(process.execPath, [join(root, 'scripts', 'bundle.mjs')]);
  if (bundled !== 0) {
    bundle.failed();
    say('bundling failed (scripts/bundle.mjs)');
    process.exit(bundled);
  }
  bundle.done();
  try {
    record(root);
  } catch (err) {
    // only the next start's skip is lost: it builds again
    say(`could not write the build's stamp (${err.message}); the next start builds again`);
  }
}

const purpose = process.argv[2] ?? 'start';
if (!Object.hasOwn(NEEDS, purpose)) {
  say(`unknown purpose '${purpose}'; use one of ${Object.keys(NEEDS).join(', ')}`);
  process.exit(2);
}
const started = Date.now();
checkNode();
await npmInstallIfStale();
await ensureOsPackages(NEEDS[purpose]);
await build();
say(`ready in ${formatElapsed(Date.now() - started)}`);
