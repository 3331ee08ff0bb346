// Setup file of both projects when TEST_CPU_LOG names a file (vitest.config.ts): after each
// test file, one JSON line with the CPU seconds the file took in its vitest fork and in the
// processes it started and waited for (nats-server, the CLI, `caesar up` and everything they
// start in turn), and its wall seconds. CONTRIBUTING.md, "Where the suite's time goes", reads
// it. Linux only: it reads /proc/self/stat.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** Clock ticks a second: USER_HZ, 100 on every Linux Node runs on. */
const TICKS = 100;

/** This process's CPU seconds, and those of its children it has waited for. */
function cpuSeconds(): { self: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // after the command name, which may hold spaces: state is field 0, utime 11 ... cstime 14
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const sum = (a: number, b: number) => (fields[a]! + fields[b]!) / TICKS;
  return { self: sum(11, 12), children: sum(13, 14) };
}

const log = process.env.TEST_CPU_LOG;
if (log !== undefined && log !== '') {
  let file = '';
  let start = cpuSeconds();
  let began = 0;
  // vitest passes the file's suite second; its first argument must be a destructuring pattern
  // eslint-disable-next-line no-empty-pattern
  beforeAll(({}, suite) => {
    file = relative(process.cwd(), suite.file.filepath);
    start = cpuSeconds();
    began = performance.now();
  });
  afterAll(() => {
    const end = cpuSeconds();
    const round = (n: number) => Math.round(n * 100) / 100;
    const line = {
      file,
      cpu_self_s: round(end.self - start.self),
      cpu_children_s: round(end.children - start.children),
      wall_s: round((performance.now() - began) / 1000),
    };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
