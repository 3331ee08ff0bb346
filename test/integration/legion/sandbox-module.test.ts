import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadToolModule, type ToolContext } from '../../../src/legion/index.js';
import { assertBuilt, runCli } from '../../helpers/cli.js';

// `caesar legion new <name> --sandbox` (ADR 0097; docs/legion.md, "Sandboxed command tools"): the scaffold's own test passes with
// nothing installed, and its module, loaded as an operator's would be, runs its program in
// the real sandbox.

let dir: string;

const cli = (args: string[]) => runCli(args, {}, { cwd: dir });

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'caesar-scaffold-sandbox-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('legion new --sandbox writes a command tool that serve-tool --check accepts and whose test passes', async () => {
  expect(await cli(['legion', 'new', 'factorer', '--sandbox'])).toMatchObject({
    code: 0,
    stderr: '',
  });
  expect((await readdir(join(dir, 'factorer'))).sort()).toEqual([
    'README.md',
    'package.json',
    'tool.js',
    'tool.test.js',
  ]);
  const checked = await cli(['legion', 'serve-tool', '--module', './factorer', '--check']);
  expect(checked).toMatchObject({ code: 0, stdout: '{"tools":["factorer"]}' });
  const { stdout } = await promisify(execFile)(process.execPath, ['--test'], {
    cwd: join(dir, 'factorer'),
  });
  expect(stdout).toMatch(/# pass 3\b/);
  expect(stdout).toMatch(/# fail 0\b/);
});

test("the --sandbox scaffold's module runs factor in the sandbox; its stop leaves nothing", async () => {
  const [tool] = await loadToolModule('./factorer/tool.js', dir);
  const ctx = { signal: new AbortController().signal, config: {} } as ToolContext;
  expect(await tool!.handler(tool!.input.parse({ n: 84 }), ctx)).toEqual({
    n: 84,
    factors: [2, 2, 3, 7],
  });
  expect(await tool!.preflight?.({} as never)).toMatchObject({ ok: true });
  await tool!.stop?.();
});
