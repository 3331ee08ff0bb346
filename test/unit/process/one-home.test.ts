import { expect, test } from 'vitest';
import { productSources } from '../../helpers/sources.js';

// Issue 30, ADR 0082: worker threads start in one place, `startThread` (src/process/thread.ts),
// and child processes in one, `spawnChild` / `runFile` (src/process/spawn.ts), so the options
// every thread needs (no inherited execArgv, limits, how it ended) and what every child needs
// (a spawn that fails is an end, not a hang) are written once. eslint's
// no-restricted-imports says the same at each import; this test also sees `import()`,
// `require` and an eval'd thread source, and names the file.

/** Each chore's one home; every exception is listed here with why (none today). */
const HOMES = {
  'worker thread': 'src/process/thread.ts',
  'child process': 'src/process/spawn.ts',
} as const;
type Chore = keyof typeof HOMES;

/** A value import, re-export, import() or require() of the module (a type import is fine). */
function uses(module: string): RegExp {
  const name = `['"](?:node:)?${module}['"]`;
  return new RegExp(
    `(?:^\\s*(?:import|export)(?!\\s+type\\b)[^;]*?\\bfrom\\s*${name}|\\bimport\\s*\\(\\s*${name}|\\brequire\\s*\\(\\s*${name})`,
    'm',
  );
}

const SIGNS: Record<Chore, readonly RegExp[]> = {
  // `new Worker(`, a Worker imported by value, or a thread built from a source string
  'worker thread': [/\bnew\s+Worker\s*\(/, /\beval\s*:\s*true\b/],
  'child process': [uses('child_process')],
};

/** `file: chore` for each file outside a chore's home that does that chore. */
function offenders(files: readonly { file: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    for (const chore of Object.keys(HOMES) as Chore[]) {
      if (file === HOMES[chore]) continue;
      if (SIGNS[chore].some((sign) => sign.test(text))) out.push(`${file}: ${chore}`);
    }
  }
  return out;
}

test('only src/process/thread.ts starts a worker thread and only src/process/spawn.ts a child', () => {
  const files = productSources();
  expect(files.length).toBeGreaterThan(100);
  expect(offenders(files)).toEqual([]);
  // the homes still do their chore, so the guard is not looking at the wrong files
  const text = (file: string) => files.find((f) => f.file === file)?.text ?? '';
  expect(text(HOMES['worker thread'])).toMatch(/\bnew Worker\(/);
  expect(text(HOMES['child process'])).toMatch(uses('child_process'));
});

test('the guard names each planted thread or child start, and lets types and thread entries be', () => {
  const planted = [
    { file: 'src/audit/x.ts', text: "const w = new Worker(new URL('./t.js', import.meta.url));" },
    { file: 'src/process/y.ts', text: 'const w = new Worker(SOURCE, { eval: true });' },
    { file: 'src/cli/a.ts', text: "import { execFile } from 'node:child_process';" },
    { file: 'workers/b/b.ts', text: "const { spawn } = await import('child_process');" },
    { file: 'src/bus/c.ts', text: "const cp = require('node:child_process');" },
    { file: 'src/bus/d.ts', text: "export { spawn } from 'node:child_process';" },
    { file: 'src/bus/ok.ts', text: "import type { ChildProcess } from 'node:child_process';" },
    { file: 'src/audit/ok.ts', text: "import { parentPort } from 'node:worker_threads';" },
    { file: 'src/process/spawn.ts', text: "import { spawn } from 'node:child_process';" },
    { file: 'src/process/thread.ts', text: 'const w = new Worker(url);' },
  ];
  expect(offenders(planted)).toEqual([
    'src/audit/x.ts: worker thread',
    'src/process/y.ts: worker thread',
    'src/cli/a.ts: child process',
    'workers/b/b.ts: child process',
    'src/bus/c.ts: child process',
    'src/bus/d.ts: child process',
  ]);
});
