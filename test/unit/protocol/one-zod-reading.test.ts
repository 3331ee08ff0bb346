import { expect, test } from 'vitest';
import { productSources } from '../../helpers/sources.js';

// Issue 30: zod's issues are read once. src/protocol/field-issues.ts turns a ZodError into
// fields (`zodFields`, `fieldIssuesOf`, `describeFirstIssue`, `placeZodFields`): the paths in
// one style (`a.b[1].c`), an unknown key at its own path, zod's `Invalid input: ` dropped, a
// union read by its first failing branch. Every other module words those fields for its
// readers (a did-you-mean, a file position, an env var) and never reads the issues itself, so
// a ninth mapper cannot grow back and name the same mistake another way. ADR 0079.

const HOME = 'src/protocol/field-issues.ts';

/** What reading zod's issues by hand looks like, each with the words a failure prints. */
const READINGS: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\.error\.issues\b/, what: 'reads a ZodError’s issues' },
  { pattern: /\.issues\s*\[/, what: 'takes one issue by index' },
  { pattern: /\$ZodIssue\b/, what: 'takes zod issues instead of the error' },
  { pattern: /Invalid input: /, what: "strips zod's prefix itself" },
  {
    pattern: /['"](?:unrecognized_keys|invalid_key|invalid_union)['"]/,
    what: 'reads an issue code the home words',
  },
];

/** `file:line: what` for each hand reading outside the home (comments are passed over). */
function offenders(files: readonly { file: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    if (file === HOME) continue;
    text.split('\n').forEach((line, i) => {
      if (/^\s*(\*|\/\*|\/\/)/.test(line)) return;
      const code = line.replace(/\/\/.*$/, '');
      for (const { pattern, what } of READINGS) {
        if (pattern.test(code)) out.push(`${file}:${i + 1}: ${what}`);
      }
    });
  }
  return out;
}

test('only src/protocol/field-issues.ts reads zod issues', () => {
  const files = productSources();
  expect(files.length).toBeGreaterThan(100);
  expect(offenders(files)).toEqual([]);
  // the home still reads them, so the list above cannot point at a home that moved
  const home = files.find((f) => f.file === HOME)?.text ?? '';
  expect(home).toMatch(/\berror\.issues\b/);
  expect(home).toMatch(/Invalid input: /);
});

test('the guard names a planted reading, file and line', () => {
  const planted = [
    { file: 'src/brain/x.ts', text: 'const a = 1;\nconst first = parsed.error.issues[0];' },
    { file: 'workers/y/y.ts', text: "if (issue.code === 'unrecognized_keys') return;" },
    {
      file: 'src/audit/z.ts',
      text: "// parsed.error.issues in a comment\nm.replace(/^Invalid input: /, '');",
    },
    { file: HOME, text: 'error.issues[0]' },
  ];
  expect(offenders(planted)).toEqual([
    'src/brain/x.ts:2: reads a ZodError’s issues',
    'src/brain/x.ts:2: takes one issue by index',
    'workers/y/y.ts:1: reads an issue code the home words',
    "src/audit/z.ts:2: strips zod's prefix itself",
  ]);
});
