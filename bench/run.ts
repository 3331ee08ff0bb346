import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createConsoleContext, SMOKE, type BenchSuite } from './harness.js';

// Runs every `*.bench.js` beside this file (compiled from bench/*.bench.ts), or only those
// whose name contains one of the command-line arguments: `npm run bench -- dispatch`.
const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = (await readdir(here))
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

const ctx = createConsoleContext();
console.log(`CAESAR benchmarks: node ${process.version}, ${files.length} suite(s)`);
if (SMOKE) {
  console.log('smoke run (BENCH_SMOKE=1): one round at token sizes; the figures measure nothing');
}
// A suite that fails is named and the others still run, so one run shows every broken suite;
// the exit code says one failed (an exit, not an exit code: a failed suite may leave a handle).
const failed: string[] = [];
for (const file of files) {
  try {
    const started = performance.now();
    const suite = (await import(pathToFileURL(`${here}/${file}`).href)) as BenchSuite;
    await suite.run(ctx);
    console.log(`  (${file}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } catch (err) {
    failed.push(file);
    console.error(`\n${file} failed:`, err);
  }
}
if (failed.length > 0) {
  console.error(`\n${failed.length} of ${files.length} suite(s) failed: ${failed.join(', ')}`);
  process.exit(1);
}
