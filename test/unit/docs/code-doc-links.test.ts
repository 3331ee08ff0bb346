import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../../helpers/doc-blocks.js';

// Issue 29, point 10: the `nats-server.conf` that `caesar nats config` writes sent its reader
// to docs/operations.md, "Many hosts", a section with another title. Every place the code
// (messages, generated files, comments) or the dashboard points into the docs, as
// `docs/x.md`, `docs/x.md, "Heading"`, `docs/x.md ("Heading")` or `docs/x.md#anchor`, must
// name a file that exists and a heading it has.

/** Every .ts file under src/ and workers/, and the dashboard's scripts and pages. */
function codeFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (/\.(ts|js|html)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const dir of ['src', 'workers', 'web']) walk(dir);
  return out.sort();
}

export interface DocRef {
  readonly line: number;
  readonly doc: string;
  readonly heading?: string;
  readonly anchor?: string;
}

/**
 * The docs references of one source text. A quoted heading may run on across a string
 * concatenation (`'… (docs/policy.md, "Flow ' +\n '… rules")'`) or a comment's next line;
 * both joints count as one space.
 */
export function docRefs(source: string): DocRef[] {
  const joints = /(['`])\s*\+\s*\n\s*\1|\n\s*(?:\*(?!\/)|\/\/)?[ \t]*/g;
  const offsets: number[] = [];
  let flat = '';
  let last = 0;
  for (const m of source.matchAll(joints)) {
    for (let i = last; i < m.index; i++) offsets.push(i);
    flat += source.slice(last, m.index);
    offsets.push(m.index);
    flat += ' ';
    last = m.index + m[0].length;
  }
  flat += source.slice(last);
  for (let i = last; i < source.length; i++) offsets.push(i);
  const lineOf = (flatIndex: number): number =>
    source.slice(0, offsets[flatIndex] ?? 0).split('\n').length;

  const refs: DocRef[] = [];
  const ref =
    /(?<![\w./-])docs\/((?:[\w-]+\/)*[\w.-]+\.md)(?:#([\w-]+)|,\s*"([^"]{1,80})"|\s+\("([^"]{1,80})"\))?/g;
  for (const m of flat.matchAll(ref)) {
    const heading = (m[3] ?? m[4])?.replace(/\s+/g, ' ');
    refs.push({
      line: lineOf(m.index),
      doc: `docs/${m[1]!}`,
      ...(heading === undefined ? {} : { heading }),
      ...(m[2] === undefined ? {} : { anchor: m[2] }),
    });
  }
  return refs;
}

/** A heading's text as a reader sees it: no `#`s, no backticks. */
const headingText = (line: string): string =>
  line
    .replace(/^#+\s+/, '')
    .replace(/`/g, '')
    .trim();

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to `-`. */
const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function headingsOf(doc: string): string[] {
  const text = readFileSync(join(ROOT, doc), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  return text
    .split('\n')
    .filter((l) => /^#{1,6}\s/.test(l))
    .map(headingText);
}

/** Why a reference does not resolve; undefined when it does. */
function problemWith(ref: DocRef): string | undefined {
  if (!existsSync(join(ROOT, ref.doc))) return `${ref.doc} does not exist`;
  const headings = headingsOf(ref.doc);
  if (ref.heading !== undefined && !headings.includes(ref.heading)) {
    const word = ref.heading.toLowerCase();
    const near = headings.filter(
      (h) => h.toLowerCase().includes(word) || word.includes(h.toLowerCase()),
    );
    const list = (near.length > 0 ? near : headings).map((h) => `"${h}"`).join(', ');
    return `${ref.doc} has no heading "${ref.heading}" (${near.length > 0 ? 'did you mean' : 'its headings:'} ${list})`;
  }
  if (ref.anchor !== undefined && !headings.some((h) => slug(h) === ref.anchor)) {
    return `${ref.doc} has no heading with the anchor #${ref.anchor}`;
  }
  return undefined;
}

describe('docs references in the code', () => {
  const files = codeFiles();
  const refs = files.flatMap((file) =>
    docRefs(readFileSync(join(ROOT, file), 'utf8')).map((r) => ({ file, ...r })),
  );

  test('there are some, with headings (the reader found them)', () => {
    expect(refs.length).toBeGreaterThan(50);
    expect(refs.filter((r) => r.heading !== undefined).length).toBeGreaterThan(10);
  });

  test('each names a file that exists and a heading it has', () => {
    const wrong = refs.flatMap((r) => {
      const problem = problemWith(r);
      return problem === undefined ? [] : [`${r.file}:${r.line}: ${problem}`];
    });
    expect(wrong).toEqual([]);
  });

  test('the nats-server.conf comment names the section on identities across hosts', () => {
    const conf = refs.filter((r) => r.file === 'src/cli/commands/nats-config.run.ts');
    expect(conf).toContainEqual(
      expect.objectContaining({ doc: 'docs/operations.md', heading: 'Workers on other hosts' }),
    );
  });
});

describe('the reader of references', () => {
  test.each([
    [
      `x('see docs/llm.md, "Retries and failover"')`,
      { doc: 'docs/llm.md', heading: 'Retries and failover' },
    ],
    [
      `'(docs/policy.md, "Flow ' +\n    'rules")'`,
      { doc: 'docs/policy.md', heading: 'Flow rules' },
    ],
    [
      ` * here (docs/policy.md, "Entity\n * rules"), and`,
      { doc: 'docs/policy.md', heading: 'Entity rules' },
    ],
    [`docs/llm.md ("The tool card")`, { doc: 'docs/llm.md', heading: 'The tool card' }],
    [`see docs/security.md#secrets.`, { doc: 'docs/security.md', anchor: 'secrets' }],
    [`../../docs/tools/web_search.md`, undefined],
    [`(docs/tools/calendar_read.md)`, { doc: 'docs/tools/calendar_read.md' }],
  ])('%s', (source, expected) => {
    const [ref] = docRefs(`\n${source}\n`);
    if (expected === undefined) expect(ref).toBeUndefined();
    else expect(ref).toEqual({ line: 2, ...expected });
  });

  test('"Many hosts", the title the nats-server.conf comment used before, is refused', () => {
    const [ref] = docRefs('(docs/operations.md, "Many hosts")');
    expect(problemWith(ref!)).toMatch(/docs\/operations.md has no heading "Many hosts"/);
    expect(problemWith({ line: 1, doc: 'docs/nope.md' })).toBe('docs/nope.md does not exist');
    expect(problemWith({ line: 1, doc: 'docs/security.md', anchor: 'nope' })).toMatch(/#nope/);
  });
});
