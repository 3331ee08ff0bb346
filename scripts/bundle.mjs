// The build's bundles (ADR 0047, ADR 0048 addendum 2, ADR 0104), all minified with the names
// of functions and classes kept:
// - the commands: dist/src/cli/program/cli.js with everything it imports statically (commander, the
//   declarations, the light files) into cli.bundle.js, and `client.js`, which the client
//   commands load with import(), into a chunk of its own (zod, js-yaml, the config loader,
//   the contract): what `--help` and `caesar chat` load, and nothing more;
// - the runners of the other commands (`caesar up`'s supervisor, `caesar brain`, `legion
//   serve-tool`, the audit and policy commands, ...): each an entry `cli.runner-<path>.js`,
//   with chunks for what they share. The commands' import() of a runner loads its entry;
// - each thread's script (`dist/{src,workers}/**/x-thread.js`: the audit writer and verifier,
//   the watchdog, the calculator's evaluation threads, ...) into one file beside it,
//   `x-thread.bundle.js`, which `compiledScriptUrl` (src/process/script-url.ts) starts in
//   its place. The calculator's thread thus loads the few mathjs factories it uses from one
//   file, not mathjs's 1,262 modules: ~2 s of CPU at every thread start (ADR 0104).
// A process thus loads a handful of files in place of the ~400 modules its runner reaches
// (zod alone is ~100), which costs less time and memory (docs/benchmarks.md, "Footprint").
// The builds share no module: as before, the commands hold their own copies of the light
// modules a runner uses too (errors, exit codes), and nothing compares a class across that
// line (ADR 0047); a thread and its caller exchange only structured-cloned data. `main.js`
// and `compiledScriptUrl` use a bundle only when it is not older than the last compile.
// Runs after tsc in `npm run build` and in scripts/setup.mjs; without rolldown (installed with
// vite) it says so and the CLI and the threads load their modules one by one.
//
// Left outside: better-sqlite3 (a native addon that finds its `.node` file from its own
// place in node_modules), and the scripts a child process starts by URL (`main.js`, the test
// fixtures): they stay the compiled modules beside their callers, found as before (below).
import { readdir, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'src', 'cli');
/** The bundle's files, beside the modules. */
const BUNDLE_FILE = /^cli\.(bundle|runner)[.-]/;
/** The one import() of the commands that joins their bundle, as a chunk. */
const CLIENT = join(cli, 'brain-client', 'runners.js');
/** The commands' entry, `cli.js`, stands in program/; its bundle in cli/. */
const ENTRY_DIR = join(cli, 'program');
/** Function and class names survive minifying. */
const KEEP_NAMES = { function: true, class: true };
/** Packages that stay imports of node_modules. */
const EXTERNAL = ['better-sqlite3'];

/** The folders under dist/ whose `*-thread.js` scripts are bundled, and the names. */
const THREAD_ROOTS = ['src', 'workers'].map((dir) => join(root, 'dist', dir));
const THREAD_SCRIPT = /-thread\.js$/;
const THREAD_BUNDLE = /-thread\.bundle\.js$/;

/** Every file under `dirs` (recursively) whose name matches `pattern`, as absolute paths. */
async function filesUnder(dirs, pattern) {
  const lists = await Promise.all(
    dirs.map(async (dir) =>
      (await readdir(dir, { recursive: true }).catch(() => []))
        .filter((f) => pattern.test(f))
        .map((f) => join(dir, f)),
    ),
  );
  return lists.flat();
}

const stale = [
  ...(await readdir(cli).catch(() => []))
    .filter((f) => BUNDLE_FILE.test(f))
    .map((f) => join(cli, f)),
  ...(await filesUnder(THREAD_ROOTS, THREAD_BUNDLE)),
];
await Promise.all(stale.map((f) => rm(f, { force: true })));
let build;
try {
  ({ build } = await import('rolldown'));
} catch {
  console.error(
    'bundle: rolldown is not installed; the CLI and the threads load their modules one by one',
  );
  process.exit(0);
}

/**
 * A module's `import.meta.url` keeps meaning that module's own file once it is inlined in a
 * chunk written to `outDir`: each use becomes the module's path relative to the chunk,
 * resolved against the chunk's URL. So `new URL('./writer-thread.js', import.meta.url)` still
 * finds the thread's script beside its caller, and the package's files are found from where
 * the module was built, wherever the package is moved to.
 */
function ownImportMetaUrl(outDir) {
  return {
    name: 'own-import-meta-url',
    transform(code, id) {
      if (!code.includes('import.meta.url') || !id.startsWith(join(root, 'dist') + sep)) {
        return null;
      }
      const fromChunk = relative(outDir, id).split(sep).join('/');
      const url = `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`;
      return { code: code.replaceAll('import.meta.url', url), map: null };
    },
  };
}

/**
 * commander requires node:child_process when it loads, for executable subcommands, which
 * caesar has none of; loading it (with net and dgram) is ~4 ms of `caesar --help`. Here it
 * loads when `spawn` is first read. Fails the build if commander no longer has that line.
 */
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  transform(code, id) {
    if (!/[\\/]commander[\\/]lib[\\/]command\.js$/.test(id)) return null;
    const line = "const childProcess = require('node:child_process');";
    if (code.split(line).length !== 2) {
      throw new Error(`bundle: ${id} no longer has \`${line}\`; update lazyChildProcess`);
    }
    const lazy =
      "const childProcess = { get spawn() { return require('node:child_process').spawn; } };";
    return { code: code.replace(line, lazy), map: null };
  },
};

/** A runner's entry name: its path under dist/, `/` as `-` (`src-cli-stack-index`). */
function runnerName(file) {
  return relative(join(root, 'dist'), file).replace(/\.js$/, '').split(sep).join('-');
}

/** The commands' import() of a runner (every one but the client's) loads the runner's entry. */
const runners = new Set();
const runnersFromTheirEntries = {
  name: 'runners-from-their-entries',
  resolveId(source, importer, { kind }) {
    if (kind !== 'dynamic-import' || importer === undefined || !source.startsWith('.')) return null;
    const target = resolve(dirname(importer), source);
    if (target === CLIENT) return null;
    runners.add(target);
    // 'relative' is written from the entry's folder (program/); the chunk stands in cli/
    return { id: join(ENTRY_DIR, `cli.runner-${runnerName(target)}.js`), external: 'relative' };
  },
};

const common = {
  platform: 'node',
  external: (id) => EXTERNAL.some((pkg) => id === pkg || id.startsWith(`${pkg}/`)),
  logLevel: 'warn',
};
const output = {
  dir: cli,
  format: 'esm',
  // Smaller sources are less memory in every process (V8 keeps each script's source); names
  // of functions and classes stay, for stack traces and for errors' `name`.
  minify: { compress: { keepNames: KEEP_NAMES }, mangle: { keepNames: KEEP_NAMES } },
};

await build({
  ...common,
  input: join(ENTRY_DIR, 'cli.js'),
  plugins: [ownImportMetaUrl(cli), lazyChildProcess, runnersFromTheirEntries],
  output: {
    ...output,
    entryFileNames: 'cli.bundle.js',
    chunkFileNames: 'cli.bundle-[name]-[hash].js',
  },
});

await build({
  ...common,
  input: Object.fromEntries([...runners].map((file) => [runnerName(file), file])),
  plugins: [ownImportMetaUrl(cli)],
  output: {
    ...output,
    entryFileNames: 'cli.runner-[name].js',
    chunkFileNames: 'cli.runner-[name]-[hash].js',
  },
});

// One build a thread, each into one file: a thread is a fresh V8 isolate that shares no
// loaded module with its caller, so nothing is gained by chunks the two could share.
const threads = await filesUnder(THREAD_ROOTS, THREAD_SCRIPT);
await Promise.all(
  threads.map((script) =>
    build({
      ...common,
      input: script,
      plugins: [ownImportMetaUrl(dirname(script))],
      output: {
        ...output,
        dir: dirname(script),
        entryFileNames: '[name].bundle.js',
        codeSplitting: false,
      },
    }),
  ),
);
