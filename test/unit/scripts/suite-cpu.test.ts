import { expect, test } from 'vitest';
import { formatSummary, summarize } from '../../../scripts/suite-cpu.mjs';

const line = (file: string, self: number, children: number, wall: number) =>
  JSON.stringify({ file, cpu_self_s: self, cpu_children_s: children, wall_s: wall });

test('sums the log and lists the files that took most CPU, children included, first', () => {
  const text = [
    line('test/unit/a.test.ts', 2, 0, 1),
    '',
    line('test/integration/b.test.ts', 0.5, 20, 30),
    line('test/integration/c.test.ts', 4, 3, 9),
  ].join('\n');
  const summary = summarize(text, 2);
  expect(summary).toMatchObject({ files: 3, cpu_self_s: 6.5, cpu_children_s: 23 });
  expect(summary.top.map((f) => f.file)).toEqual([
    'test/integration/b.test.ts',
    'test/integration/c.test.ts',
  ]);
  const lines = formatSummary(summary);
  expect(lines[0]).toBe(
    '3 files: 7 CPU-s in the vitest forks, 23 CPU-s in the processes they started',
  );
  expect(lines[2]).toBe('   20.5     0.5    20.0    30.0  test/integration/b.test.ts');
});
