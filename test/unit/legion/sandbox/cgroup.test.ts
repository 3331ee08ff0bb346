import { describe, expect, test } from 'vitest';
import {
  cgroupDir,
  cgroupMounts,
  cgroupPaths,
  oomKillsOf,
} from '../../../../src/legion/sandbox/cgroup.js';
import { exitCodeOf } from '../../../../src/legion/sandbox/run.js';

const MOUNTINFO = [
  '30 25 0:26 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs ro,mode=755',
  '34 30 0:30 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  '38 30 0:34 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '39 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
].join('\n');

describe('cgroup files', () => {
  test('finds the cgroup2 mount and the v1 memory mount in mountinfo', () => {
    expect(cgroupMounts(MOUNTINFO)).toEqual({
      v2: { version: 2, root: '/', mountPoint: '/sys/fs/cgroup/unified' },
      v1Memory: { version: 1, root: '/', mountPoint: '/sys/fs/cgroup/memory' },
      v1Pids: { version: 1, root: '/', mountPoint: '/sys/fs/cgroup/pids' },
    });
    expect(cgroupMounts('')).toEqual({});
  });

  test("reads the worker's v2 and v1 memory paths from /proc/self/cgroup", () => {
    expect(
      cgroupPaths('4:memory:/process_api/abc\n1:cpu:/\n0::/user.slice/caesar.service\n'),
    ).toEqual({
      v1Memory: '/process_api/abc',
      v2: '/user.slice/caesar.service',
    });
  });

  test.each([
    ['/', '/a/b', '/mnt/a/b'],
    ['/a', '/a/b', '/mnt/b'],
    ['/a', '/a', '/mnt'],
    ['/a', '/ab', undefined],
  ])('under a mount of root %s, the path %s is %s', (root, path, dir) => {
    expect(cgroupDir({ version: 2, root, mountPoint: '/mnt' }, path)).toBe(dir);
  });

  test.each([
    ['oom 1\noom_kill 2\n', 2],
    ['oom_kill_disable 0\nunder_oom 0\noom_kill 1\n', 1],
    ['oom_kill_disable 0\n', 0],
  ])('OOM kills in %j: %i', (text, kills) => {
    expect(oomKillsOf(text)).toBe(kills);
  });

  test("bubblewrap's status fd: the exit code, or none when the program never ran", () => {
    expect(exitCodeOf('{ "child-pid": 7 }\n{ "exit-code": 137 }\n')).toBe(137);
    expect(exitCodeOf('{ "child-pid": 7 }\n')).toBeUndefined();
    expect(exitCodeOf('')).toBeUndefined();
  });
});
