import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * How a shell example in the docs is tested, from the HTML comment on the line above its fence
 * (`<!-- doc-test: … -->`, invisible when the page is rendered; blank lines may come between):
 * - `run`: test/integration/docs/runnable-docs.test.ts runs it, as written, against a real stack;
 * - `covered-by <test file>`: that test runs it (the file must name the doc);
 * - `illustrative: <why>`: not run, with the reason (another host, Docker, a paid API, …).
 */
export type DocTest =
  { kind: 'run' } | { kind: 'covered-by'; test: string } | { kind: 'illustrative'; why: string };

export interface DocBlock {
  /** The doc's path from the repository root, e.g. `docs/api.md`. */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's text, without the fences. */
  body: string;
  /** Its marker; undefined when the block has none (a defect the marker test reports). */
  test: DocTest | undefined;
  /** The marker's text when it could not be read. */
  badMarker?: string;
}

/** Fence languages that are shell examples. */
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/** README.md and every Markdown file under docs/, except the ADRs (records, not instructions). */
export function docFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (path !== 'docs/adr') walk(path);
      } else if (e.name.endsWith('.md')) out.push(path);
    }
  };
  walk('docs');
  return out.sort();
}

function parseMarker(text: string): DocTest | undefined {
  const m = /^<!--\s*doc-test:\s*(.*?)\s*-->$/.exec(text.trim());
  if (!m) return undefined;
  const value = m[1]!;
  if (value === 'run') return { kind: 'run' };
  const covered = /^covered-by\s+(\S+)$/.exec(value);
  if (covered) return { kind: 'covered-by', test: covered[1]! };
  const illustrative = /^illustrative:\s*(\S.*)$/.exec(value);
  if (illustrative) return { kind: 'illustrative', why: illustrative[1]! };
  return undefined;
}

/** Every shell block of one doc, with its marker. */
export function shellBlocks(doc: string): DocBlock[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (SHELL.has(open[2]!)) {
      // the marker is the last non-blank line above the fence (Prettier puts a blank between)
      let a = i - 1;
      while (a >= 0 && lines[a]!.trim() === '') a--;
      const above = a >= 0 ? lines[a]! : '';
      const test = parseMarker(above);
      const block: DocBlock = {
        doc,
        line: i + 1,
        body: lines.slice(i + 1, end).join('\n'),
        test,
      };
      if (!test && above.includes('doc-test')) block.badMarker = above.trim();
      blocks.push(block);
    }
    i = end;
  }
  return blocks;
}

/** Every shell block of README.md and docs/. */
export function allShellBlocks(): DocBlock[] {
  return docFiles().flatMap(shellBlocks);
}

/** `docs/api.md:18`, for messages. */
export function where(b: DocBlock): string {
  return `${b.doc}:${b.line}`;
}
