// Bundles the CLI's client commands (dist/src/cli/client.js: `chat`, `invoke`, `confirm`,
// `reject`, with the config loader, the API contract, zod and js-yaml) into one file,
// dist/src/cli/client.bundle.js, which loads in well under half the time of the modules it
// holds (ADR 0047). Runs after tsc in `npm run build` and in scripts/setup.mjs. Without
// rolldown (installed with vite) it says so and leaves the CLI to load the modules one by one.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const input = join(root, 'dist', 'src', 'cli', 'client.js');
const file = join(root, 'dist', 'src', 'cli', 'client.bundle.js');

let rolldown;
try {
  ({ build: rolldown } = await import('rolldown'));
} catch {
  console.error('bundle-client: rolldown is not installed; the CLI client runs unbundled');
  await rm(file, { force: true });
  process.exit(0);
}
await rolldown({
  input,
  platform: 'node',
  // the CLI's own copy: the declarations have loaded it already
  external: ['commander'],
  logLevel: 'warn',
  output: { file, format: 'esm', codeSplitting: false },
});
