import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { allShellBlocks, ROOT, where } from '../../helpers/doc-blocks.js';

// Issue 15, scope 6: every shell example in README.md and docs/ says how it is tested. A block
// that talks to a running stack is either run by a test against a real stack or marked
// illustrative with the reason, so a `curl` that gets 401 or a `--session` that answers 404
// cannot come back unnoticed. The marker is an HTML comment on the line above the fence.

const blocks = allShellBlocks();

describe('shell examples in the docs', () => {
  test('there are some (the reader found the docs)', () => {
    expect(blocks.length).toBeGreaterThan(30);
  });

  test('each has a doc-test marker: run, covered-by <test>, or illustrative: <why>', () => {
    const unmarked = blocks.filter((b) => !b.test).map((b) => `${where(b)} ${b.badMarker ?? ''}`);
    expect(
      unmarked,
      'add `<!-- doc-test: run -->`, `<!-- doc-test: covered-by test/… -->` or ' +
        '`<!-- doc-test: illustrative: <why> -->` on the line above each fence',
    ).toEqual([]);
  });

  test('a covered-by test exists and reads that doc', () => {
    const wrong: string[] = [];
    for (const b of blocks) {
      if (b.test?.kind !== 'covered-by') continue;
      const file = join(ROOT, b.test.test);
      if (!existsSync(file)) {
        wrong.push(`${where(b)}: ${b.test.test} does not exist`);
        continue;
      }
      const text = readFileSync(file, 'utf8');
      if (!text.includes(b.doc) && !text.includes(basename(b.doc)))
        wrong.push(`${where(b)}: ${b.test.test} never names ${b.doc}`);
    }
    expect(wrong).toEqual([]);
  });
});
