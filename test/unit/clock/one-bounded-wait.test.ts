import { expect, test } from 'vitest';
import { productSources } from '../../helpers/sources.js';

// Issue 30: a bounded wait is `waitAtMost` (src/clock/wait-at-most.ts), which clears its
// timer. Ten places wrote it by hand, `Promise.race([p, new Promise(r => setTimeout(r, ms))])`
// each its own way, and one left its timer running, which held a stopping brain open for
// 3.5 s. This test finds a race with a timer anywhere else and names the file.

const HOME = 'src/clock/wait-at-most.ts';

/** The text of each `Promise.race(` call's arguments, up to its closing parenthesis. */
function races(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\bPromise\.race\s*\(/g)) {
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
    }
    out.push(text.slice(m.index, i));
  }
  return out;
}

function offenders(files: readonly { file: string; text: string }[]): string[] {
  return files
    .filter(({ file }) => file !== HOME)
    .filter(({ text }) => races(text).some((race) => /\bsetTimeout\s*\(/.test(race)))
    .map(({ file }) => file);
}

test('no Promise.race with a timer outside src/clock/wait-at-most.ts', () => {
  const files = productSources();
  expect(files.length).toBeGreaterThan(100);
  expect(offenders(files)).toEqual([]);
  // the home still does the chore, so the guard is not looking at the wrong files
  expect(races(files.find((f) => f.file === HOME)?.text ?? '').join('')).toMatch(/setTimeout/);
});

test('the guard names a planted race with a timer, and lets a race without one be', () => {
  const planted = [
    {
      file: 'src/brain/x.ts',
      text: 'await Promise.race([loop, new Promise((r) => setTimeout(r, 3500))]);',
    },
    {
      file: 'workers/y/y.ts',
      text: 'return Promise.race([\n  call(),\n  new Promise((_, no) => {\n    setTimeout(() => no(err), ms);\n  }),\n]);',
    },
    { file: 'src/legion/z.ts', text: 'const why = await Promise.race([signalled, closed]);' },
  ];
  expect(offenders(planted)).toEqual(['src/brain/x.ts', 'workers/y/y.ts']);
});
