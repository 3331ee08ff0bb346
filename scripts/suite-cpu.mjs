// Reads the log a `TEST_CPU_LOG=<file> npx vitest run` wrote (test/setup/cpu-log.ts) and prints
// where the suite's CPU went: the totals, then the files that took most, children included.
// `node scripts/suite-cpu.mjs <file> [how many files, default 20]`. CONTRIBUTING.md, "Where
// the suite's time goes".
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The totals and the `top` costliest files of the log's lines (one JSON object a line). */
export function summarize(text, top = 20) {
  const files = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .map((f) => ({ ...f, cpu_s: f.cpu_self_s + f.cpu_children_s }));
  const sum = (key) => files.reduce((total, f) => total + f[key], 0);
  files.sort((a, b) => b.cpu_s - a.cpu_s);
  return {
    files: files.length,
    cpu_self_s: sum('cpu_self_s'),
    cpu_children_s: sum('cpu_children_s'),
    top: files.slice(0, top),
  };
}

/** The summary as lines for a terminal. */
export function formatSummary(s) {
  const n = (x) => x.toFixed(1).padStart(7);
  return [
    `${s.files} files: ${s.cpu_self_s.toFixed(0)} CPU-s in the vitest forks, ` +
      `${s.cpu_children_s.toFixed(0)} CPU-s in the processes they started`,
    `${'CPU-s'.padStart(7)} ${'forks'.padStart(7)} ${'started'.padStart(7)} ${'wall'.padStart(7)}  file`,
    ...s.top.map(
      (f) => `${n(f.cpu_s)} ${n(f.cpu_self_s)} ${n(f.cpu_children_s)} ${n(f.wall_s)}  ${f.file}`,
    ),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [path, top] = process.argv.slice(2);
  if (path === undefined) {
    console.error('usage: node scripts/suite-cpu.mjs <TEST_CPU_LOG file> [files to list]');
    process.exit(2);
  }
  const summary = summarize(readFileSync(path, 'utf8'), top === undefined ? 20 : Number(top));
  for (const line of formatSummary(summary)) console.log(line);
}
