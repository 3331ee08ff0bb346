import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { assertBuilt } from '../../../helpers/cli.js';

// ADR 0048: `caesar up` sets its own V8 settings (it cannot take node flags of its own). Each
// case is a fresh process: a V8 flag set in the test runner would stay there.
const MODULE = new URL('../../../../dist/src/cli/stack/supervisor-v8.js', import.meta.url).href;

interface Probe {
  /** The young generation's size (MiB) after keeping 400k small objects. */
  youngMiB: number;
  /** V8's optimization status bits of a function asked to be optimised on its next call. */
  status: number;
}

/** Runs the probe in a new process, `leanSupervisorV8` first or not. */
async function probe(lean: boolean, nodeOptions = '', nodeArgs: string[] = []): Promise<Probe> {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    if (${lean}) (await import(${JSON.stringify(MODULE)})).leanSupervisorV8();
    const kept = [];
    for (let i = 0; i < 400_000; i++) kept.push({ i, s: 'x' + i });
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    function hot(x) { return x * 2 + 1; }
    %PrepareFunctionForOptimization(hot);
    hot(1);
    hot(2);
    %OptimizeFunctionOnNextCall(hot);
    hot(3);
    console.log(young.space_size / 1048576, %GetOptimizationStatus(hot), kept.length);`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeArgs, '--allow-natives-syntax', '--input-type=module', '-e', script],
    { env: { ...process.env, NODE_OPTIONS: nodeOptions } },
  );
  const [youngMiB, status] = stdout.split(' ').map(Number);
  return { youngMiB: youngMiB!, status: status! };
}

// V8's OptimizationStatus bits (src/runtime/runtime.h)
const OPTIMIZED = 1 << 4;
const INTERPRETED = 1 << 7;

describe("caesar up's V8 settings", () => {
  test('the young generation stays at its first size while surviving objects pile up, where V8 alone grows it', async () => {
    assertBuilt();
    const [lean, plain] = await Promise.all([probe(true), probe(false)]);
    expect(lean.youngMiB).toBeLessThanOrEqual(2);
    expect(plain.youngMiB).toBeGreaterThanOrEqual(8);
  });

  test('code asked to be optimised stays in the interpreter, where V8 alone optimises it', async () => {
    assertBuilt();
    const [lean, plain] = await Promise.all([probe(true), probe(false)]);
    expect(lean.status & OPTIMIZED).toBe(0);
    expect(lean.status & INTERPRETED).toBe(INTERPRETED);
    expect(plain.status & OPTIMIZED).toBe(OPTIMIZED);
  });

  test("an operator's own flags win, in NODE_OPTIONS or on node's command line", async () => {
    assertBuilt();
    const [young, opt] = await Promise.all([
      probe(true, '--max-semi-space-size=4'),
      probe(true, '', ['--opt']),
    ]);
    expect(young.youngMiB).toBeGreaterThan(2);
    expect(opt.status & OPTIMIZED).toBe(OPTIMIZED);
  });
});
