import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, startCli } from '../../helpers/cli.js';
import { startNats } from '../../helpers/nats.js';
import { waitFor, within } from '../../helpers/wait.js';

// Issue 15: `caesar legion new` scaffolds a tool in the operator's own folder, and
// `serve-tool --module` serves (or `--check`s) one with errors that say what to fix.

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'caesar-legion-new-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
const cli = (args: string[]) => runCli(args, {}, { cwd: root });

describe('caesar legion new', () => {
  test('writes the definition, a unit test that passes, a docs page and a package.json', async () => {
    const r = await cli(['legion', 'new', 'greeter']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('caesar legion serve-tool --module ./greeter --check');
    expect((await readdir(join(root, 'greeter'))).sort()).toEqual([
      'README.md',
      'package.json',
      'tool.js',
      'tool.test.js',
    ]);
    // the scaffold's own test runs with node alone: nothing to install, nothing to build
    const test = await promisify(execFile)(process.execPath, ['--test'], {
      cwd: join(root, 'greeter'),
    });
    expect(test.stdout).toMatch(/# pass 2/);
    const checked = await cli(['legion', 'serve-tool', '--module', './greeter', '--check']);
    expect(checked).toMatchObject({ code: 0, stdout: '{"tools":["greeter"]}' });
  });

  test('--dir picks the folder; an existing file is never overwritten', async () => {
    const r = await cli(['legion', 'new', 'clock', '--dir', 'tools/clock']);
    expect(r.code).toBe(0);
    const file = join(root, 'tools/clock/tool.js');
    await writeFile(file, '// mine\n');
    const again = await cli(['legion', 'new', 'clock', '--dir', 'tools/clock']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/package\.json exists: caesar legion new never overwrites/);
    expect(await readFile(file, 'utf8')).toBe('// mine\n');
  });

  // issue 26, finding 7: `legion new calculator` wrote a module serve-tool then refused
  test.each(['calculator', 'web_search'])(
    "a shipped tool's name %s exits 2 saying why, with a name to try, and writes nothing",
    async (name) => {
      const r = await cli(['legion', 'new', name, '--dir', `shipped-${name}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`'${name}' is the name of a tool CAESAR ships`);
      expect(r.stderr).toContain(`try 'my_${name}'`);
      await expect(readdir(join(root, `shipped-${name}`))).rejects.toThrow(/ENOENT/);
    },
  );

  test.each([
    ['My-Weather', 'my_weather'],
    ['2fa', 'tool_2fa'],
  ])('an invalid name %s exits 2 with the rule and a name to try', async (name, suggestion) => {
    const r = await cli(['legion', 'new', name]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`invalid tool name '${name}'`);
    expect(r.stderr).toContain(`try '${suggestion}'`);
    expect(r.stderr).toContain('^[a-z][a-z0-9_]{0,63}$');
  });
});

describe('caesar legion serve-tool --module', () => {
  test('a tool named like a shipped one is refused, naming the module and a rename', async () => {
    // `legion new` refuses the name: take another, then rename it by hand
    expect((await cli(['legion', 'new', 'my_calculator', '--dir', 'clash'])).code).toBe(0);
    const file = join(root, 'clash', 'tool.js');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace("'my_calculator'", "'calculator'"),
    );
    const r = await cli(['legion', 'serve-tool', '--module', './clash', '--check']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "tool module ./clash defines 'calculator', which is the name of a tool CAESAR ships",
    );
  });

  test('a missing file says which path it tried', async () => {
    const r = await cli(['legion', 'serve-tool', '--module', './nowhere.js', '--check']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `tool module ./nowhere.js: no such file: ${join(root, 'nowhere.js')}`,
    );
  });

  test('no tool and no module is a usage error', async () => {
    const r = await cli(['legion', 'serve-tool']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('name a shipped tool, or give --module');
  });
});

describe('serve-tool names with --module', () => {
  test('a name picks one tool of a module; a module none of whose tools is named is a usage error', async () => {
    const two =
      "import a from './greeter/tool.js';\nexport default [a, { ...a, name: 'greeter_two' }];\n";
    await writeFile(join(root, 'two.js'), two);
    const picked = await cli([
      'legion',
      'serve-tool',
      'greeter_two',
      '--module',
      './two.js',
      '--check',
    ]);
    expect(picked).toMatchObject({ code: 0, stdout: '{"tools":["greeter_two"]}' });
    const all = await cli(['legion', 'serve-tool', '--module', './two.js', '--check']);
    expect(all.stdout).toBe('{"tools":["greeter","greeter_two"]}');
    const none = await cli([
      'legion',
      'serve-tool',
      'calculator',
      '--module',
      './two.js',
      '--check',
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      '--module ./two.js defines greeter, greeter_two, none of the tools named (calculator)',
    );
  });
});

// Issue 26, finding 7: a module whose import never settled made serve-tool exit 13 with no
// message (Node's unsettled top-level await), or never end when the import waited on a timer;
// `--check` on a module that left a timer running never ended.
describe(
  'serve-tool --module: imports that never end, modules that leave timers',
  { timeout: 120_000 },
  () => {
    /** `caesar <args>` in the test folder; one still running after 60 s is killed and fails. */
    async function ended(args: string[], env: NodeJS.ProcessEnv = {}) {
      const p = startCli(args, env, { cwd: root });
      try {
        const { code } = await within(p.closed, `caesar ${args.join(' ')} to end`, 60_000);
        return { code, stdout: p.lines.join('\n'), stderr: p.stderr() };
      } finally {
        p.child.kill('SIGKILL');
      }
    }

    // a valid module that starts a timer at import and never stops it
    beforeAll(async () => {
      expect((await cli(['legion', 'new', 'ticker'])).code).toBe(0);
      const file = join(root, 'ticker', 'tool.js');
      await writeFile(file, `setInterval(() => {}, 1000);\n${await readFile(file, 'utf8')}`);
    });

    test('an import that never settles is cut off, naming the module and what to do', async () => {
      await writeFile(join(root, 'stuck.js'), 'await new Promise(() => {});\nexport default {};\n');
      const args = ['legion', 'serve-tool', '--module', './stuck.js', '--check'];
      const r = await ended([...args, '--import-timeout', '1s']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('tool module ./stuck.js did not finish importing within 1s');
      expect(r.stderr).toContain('start(ctx)');
      expect(r.stderr).toContain('worker.import_timeout');
    });

    test('an import waiting on a live timer is cut off too (worker.import_timeout), and the process ends', async () => {
      const waiting = 'await new Promise(() => setInterval(() => {}, 1000));\nexport default {};\n';
      await writeFile(join(root, 'waiting.js'), waiting);
      const args = ['legion', 'serve-tool', '--module', './waiting.js', '--check'];
      const r = await ended(args, { CAESAR_WORKER__IMPORT_TIMEOUT: '1s' });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('tool module ./waiting.js did not finish importing within 1s');
    });

    test('--check ends when its checks are done, whatever the module left running', async () => {
      const r = await ended(['legion', 'serve-tool', '--module', './ticker', '--check']);
      expect(r).toMatchObject({ code: 0, stdout: '{"tools":["ticker"]}' });
    });

    test('serving a module that left a timer running still ends on SIGTERM', async () => {
      await using nats = await startNats();
      const args = ['legion', 'serve-tool', '--module', './ticker', '--nats-url', nats.url];
      const p = startCli(
        [...args, '--log-level', 'info'],
        { CAESAR_WORKER__REQUIRE_GRANT: 'false' },
        { cwd: root },
      );
      try {
        // the worker's log (stderr) says when its tools are served
        await waitFor(() => p.stderr().includes('"msg":"ready"'), 'the worker to be ready', 60_000);
        p.child.kill('SIGTERM');
        const exit = await within(p.exited, 'serve-tool to end after SIGTERM', 30_000);
        expect(exit).toEqual({ code: 0, signal: null });
      } finally {
        p.child.kill('SIGKILL');
      }
    });
  },
);

describe('caesar up with worker.modules', () => {
  test('a module that does not load stops up before anything starts, naming the key and the file', async () => {
    const r = await runCli(
      ['up', '--nats-port', '0', '--api-port', '0', '--data-dir', join(root, 'var-up')],
      { CAESAR_WORKER__MODULES: './nowhere.js' },
      { cwd: root },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `worker.modules: tool module ${join(root, 'nowhere.js')}: no such file: ${join(root, 'nowhere.js')}`,
    );
    expect(r.stdout).not.toContain('nats-server');
  });

  test('a module whose import never settles stops up within worker.import_timeout, saying so', async () => {
    await writeFile(
      join(root, 'stuck-up.js'),
      'await new Promise(() => {});\nexport default {};\n',
    );
    const r = await runCli(
      ['up', '--nats-port', '0', '--api-port', '0', '--data-dir', join(root, 'var-up-stuck')],
      { CAESAR_WORKER__MODULES: './stuck-up.js', CAESAR_WORKER__IMPORT_TIMEOUT: '1s' },
      { cwd: root },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `worker.modules: tool module ${join(root, 'stuck-up.js')} did not finish importing within 1s`,
    );
    expect(r.stdout).not.toContain('nats-server');
  });
});
