import { Command, CommanderError } from 'commander';
import { describe, expect, test } from 'vitest';
import {
  addRestartFlags,
  restartsOf,
  type RestartFlags,
} from '../../../../../src/cli/commands/legion/restart-flags.js';

// Issue 28: `caesar up` starts a restarted worker with --restart-count, --restart-reason and
// --restart-at; a bad value is a usage error naming the option, and --help hides all three.

/** Parses `args` as a command with the three flags; the thrown usage error, or the flags. */
function parse(args: string[]): RestartFlags | string {
  const cmd = addRestartFlags(new Command('serve-tool'))
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  try {
    cmd.parse(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.message;
    throw err;
  }
  return cmd.opts<RestartFlags>();
}

const GOOD = [
  '--restart-count',
  '3',
  '--restart-reason',
  'memory',
  '--restart-at',
  '2026-12-04T10:00:00.000Z',
];

describe('the restart flags of legion serve-tool', () => {
  test('three good values become the restarts the worker declares', () => {
    const flags = parse(GOOD);
    expect(typeof flags).toBe('object');
    expect(restartsOf(flags as RestartFlags)).toEqual({
      ok: true,
      restarts: { count: 3, last_reason: 'memory', last_at: '2026-12-04T10:00:00.000Z' },
    });
  });

  test('none: a first start declares no restarts', () => {
    expect(restartsOf(parse([]) as RestartFlags)).toEqual({ ok: true, restarts: undefined });
  });

  test.each<[string, string[], RegExp]>([
    ['a count of 0', ['--restart-count', '0'], /--restart-count <n>.*'0' is invalid/],
    ['a negative count', ['--restart-count', '-1'], /--restart-count <n>.*invalid/],
    ['a fractional count', ['--restart-count', '1.5'], /--restart-count <n>.*invalid/],
    ['a count over 1e9', ['--restart-count', '1000000001'], /--restart-count <n>.*invalid/],
    ['a count with words', ['--restart-count', '3x'], /--restart-count <n>.*invalid/],
    [
      'an unknown reason',
      ['--restart-reason', 'bored'],
      /--restart-reason <reason>.*unresponsive, memory, exited/,
    ],
    ['a local time', ['--restart-at', '2026-12-04T10:00:00'], /--restart-at <time>.*invalid/],
    [
      'an offset time',
      ['--restart-at', '2026-12-04T10:00:00+01:00'],
      /--restart-at <time>.*invalid/,
    ],
    [
      'a day that does not exist',
      ['--restart-at', '2026-02-30T10:00:00Z'],
      /--restart-at <time>.*invalid/,
    ],
    ['not a time', ['--restart-at', 'yesterday'], /--restart-at <time>.*invalid/],
  ])('%s is a usage error naming the option', (_name, args, message) => {
    expect(parse(args)).toMatch(message);
  });

  test('one without the others is refused, naming all three', () => {
    const flags = parse(['--restart-count', '2']) as RestartFlags;
    expect(restartsOf(flags)).toEqual({
      ok: false,
      problem: expect.stringMatching(/--restart-count, --restart-reason and --restart-at/),
    });
  });

  test('--help does not show them', () => {
    const cmd = addRestartFlags(new Command('serve-tool'));
    expect(cmd.helpInformation()).not.toMatch(/restart/);
  });
});
