// Bundles the CLI (ADR 0047): dist/src/cli/cli.js with everything it imports statically
// (commander, the command declarations, the light files they use) into
// dist/src/cli/cli.bundle.js, and the client commands' runners (`client.js`, which the
// declarations of `chat`, `invoke`, `confirm` and `reject` load with import(): the config
// loader, the API contract, zod, js-yaml) into a chunk beside it. Every other import() (the
// runners of the server commands) stays a reference to its compiled module, which the
// command loads when it runs. A handful of files loads in a fraction of the time of the
// ~200 modules they hold. `main.js` uses the bundle only when it is not older than the last
// compile. Runs after tsc in `npm run build` and in scripts/setup.mjs; without rolldown
// (installed with vite) it says so and the CLI loads its modules one by one.
import { readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'src', 'cli');
/** The bundle's files: beside the modules, so its import()s of them keep their paths. */
const BUNDLE_FILE = /^cli\.bundle[.-]/;
/** The one import() that joins the bundle, as a chunk. */
const CLIENT = join(cli, 'client.js');

const stale = (await readdir(cli).catch(() => [])).filter((f) => BUNDLE_FILE.test(f));
await Promise.all(stale.map((f) => rm(join(cli, f), { force: true })));
let build;
try {
  ({ build } = await import('rolldown'));
} catch {
  console.error('bundle-cli: rolldown is not installed; the CLI loads its modules one by one');
  process.exit(0);
}

/** Leaves every import() but the client's to the compiled module it names. */
const runnersStayModules = {
  name: 'runners-stay-modules',
  resolveId(source, importer, { kind }) {
    if (kind !== 'dynamic-import' || importer === undefined || !source.startsWith('.')) return null;
    const target = resolve(dirname(importer), source);
    return target === CLIENT ? null : { id: target, external: 'relative' };
  },
};

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
      throw new Error(`bundle-cli: ${id} no longer has \`${line}\`; update lazyChildProcess`);
    }
    const lazy =
      "const childProcess = { get spawn() { return require('node:child_process').spawn; } };";
    return { code: code.replace(line, lazy), map: null };
  },
};

await build({
  input: join(cli, 'cli.js'),
  platform: 'node',
  plugins: [runnersStayModules, lazyChildProcess],
  logLevel: 'warn',
  output: {
    dir: cli,
    format: 'esm',
    entryFileNames: 'cli.bundle.js',
    chunkFileNames: 'cli.bundle-[name]-[hash].js',
  },
});
