import { describe, expect, test } from 'vitest';
import { runCli } from '../../helpers/cli.js';

// Issue 15: a usage error exits 2 from every command. `caesar up` and `legion list` exited 1
// on an unknown flag while `chat` exited 2, so a script could not tell a typo from a failure.

const COMMANDS = [
  ['up'],
  ['brain'],
  ['legion', 'list'],
  ['legion', 'serve-tool', 'calculator'],
  ['legion', 'identity', 'new', 'x'],
  ['nats', 'config'],
  ['chat'],
  ['audit', 'tail'],
];

describe('usage errors', () => {
  test('an unknown flag exits 2 from every command, naming the flag and showing the usage', async () => {
    const runs = await Promise.all(COMMANDS.map((c) => runCli([...c, '--no-such-flag'])));
    for (const [i, run] of runs.entries()) {
      expect({ command: COMMANDS[i], code: run.code }).toEqual({ command: COMMANDS[i], code: 2 });
      expect(run.stderr).toContain("unknown option '--no-such-flag'");
      expect(run.stderr).toContain(`Usage: caesar ${COMMANDS[i]![0]}`);
    }
  }, 60_000);

  test('--policy and --intents of up and brain without a file exit 2, naming the option', async () => {
    const runs = [
      ['up', '--policy'],
      ['up', '--intents'],
      ['brain', '--policy'],
      ['brain', '--intents'],
    ];
    const results = await Promise.all(runs.map((c) => runCli(c)));
    for (const [i, run] of results.entries()) {
      const [command, flag] = runs[i]!;
      expect({ command, flag, code: run.code }).toEqual({ command, flag, code: 2 });
      expect(run.stderr).toContain(`option '${flag} <file>' argument missing`);
    }
  }, 60_000);

  test('an unknown command exits 2; --help and --version exit 0', async () => {
    const [unknown, help, version] = await Promise.all([
      runCli(['no-such-command']),
      runCli(['up', '--help']),
      runCli(['--version']),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'no-such-command'");
    expect(help.code).toBe(0);
    expect(version.code).toBe(0);
  }, 60_000);
});
