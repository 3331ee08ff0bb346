import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { assertBuilt } from '../../helpers/cli.js';

// ADR 0048: `caesar up` keeps its young generation small (it cannot take node flags of its
// own). Each case is a fresh process: a V8 flag set in the test runner would stay there.
const MODULE = new URL('../../../dist/src/cli/young-generation.js', import.meta.url).href;

/** The young generation's size (MiB) after keeping 400k small objects, `keep` run first or not. */
async function youngGenerationMiB(keep: boolean, nodeOptions = ''): Promise<number> {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    if (${keep}) (await import(${JSON.stringify(MODULE)})).keepYoungGenerationSmall();
    const kept = [];
    for (let i = 0; i < 400_000; i++) kept.push({ i, s: 'x' + i });
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(young.space_size / 1048576, kept.length);`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script],
    { env: { ...process.env, NODE_OPTIONS: nodeOptions } },
  );
  return Number(stdout.split(' ')[0]);
}

describe("caesar up's young generation", () => {
  test('stays at its first size while surviving objects pile up, where V8 alone grows it', async () => {
    assertBuilt();
    const [kept, grown] = await Promise.all([youngGenerationMiB(true), youngGenerationMiB(false)]);
    expect(kept).toBeLessThanOrEqual(2);
    expect(grown).toBeGreaterThanOrEqual(8);
  });

  test("an operator's own semi-space flag in NODE_OPTIONS wins", async () => {
    assertBuilt();
    expect(await youngGenerationMiB(true, '--max-semi-space-size=4')).toBeGreaterThan(2);
  });
});
