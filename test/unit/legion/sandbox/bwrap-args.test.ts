import { describe, expect, test } from 'vitest';
import {
  sandboxArgv,
  type HostLayout,
  type SandboxCall,
} from '../../../../src/legion/sandbox/bwrap-args.js';
import { DEFAULT_LIMITS } from '../../../../src/legion/sandbox/limits.js';

const host: HostLayout = {
  system: [
    { kind: 'symlink', path: '/bin', target: 'usr/bin' },
    { kind: 'bind', path: '/lib' },
  ],
  prlimit: '/usr/bin/prlimit',
  etc: ['/etc/ld.so.cache', '/etc/resolv.conf'],
};

const call: SandboxCall = {
  program: '/usr/bin/dig',
  args: ['+short', '--', 'example.org'],
  read: ['/srv/zones'],
  write: [{ inside: '/out', host: '/tmp/caesar-sandbox-x/call-1/w0' }],
  network: false,
  limits: DEFAULT_LIMITS,
  memoryByRlimit: false,
};

/** The entries that follow `flag` each time it appears, `arity` at a time. */
function after(argv: string[], flag: string, arity: number): string[][] {
  const out: string[][] = [];
  argv.forEach((a, i) => {
    if (a === flag) out.push(argv.slice(i + 1, i + 1 + arity));
  });
  return out;
}

describe('sandboxArgv', () => {
  test('the program and its arguments end the argv after prlimit and two `--`, verbatim', () => {
    const hostile = ['--help; rm -rf /', '-oProxyCommand=sh -c id', '$(id)', ''];
    const argv = sandboxArgv({ ...call, args: hostile }, host);
    const program = argv.lastIndexOf('/usr/bin/dig');
    expect(argv.slice(program + 1)).toEqual(hostile);
    expect(argv[program - 1]).toBe('--');
    const prlimit = argv.indexOf('/usr/bin/prlimit');
    expect(argv[prlimit - 1]).toBe('--');
    expect(argv.slice(prlimit + 1, program - 1)).toEqual([
      '--cpu=5:6',
      `--fsize=${16 * 1024 * 1024}`,
      '--core=0',
      '--nofile=256',
    ]);
  });

  test('new namespaces of every kind, no capabilities, dies with the worker, own session', () => {
    const argv = sandboxArgv(call, host);
    for (const flag of ['--unshare-all', '--die-with-parent', '--new-session', '--clearenv']) {
      expect(argv).toContain(flag);
    }
    expect(after(argv, '--cap-drop', 1)).toEqual([['ALL']]);
    expect(argv).not.toContain('--share-net');
  });

  test('network only when declared, and only then the resolver files', () => {
    const off = sandboxArgv(call, host);
    expect(after(off, '--ro-bind', 2)).not.toContainEqual(['/etc/resolv.conf', '/etc/resolv.conf']);
    const on = sandboxArgv({ ...call, network: true }, host);
    expect(on).toContain('--share-net');
    expect(after(on, '--ro-bind', 2)).toContainEqual(['/etc/resolv.conf', '/etc/resolv.conf']);
  });

  test('a minimal environment, set after clearing', () => {
    const argv = sandboxArgv(call, host);
    expect(argv.indexOf('--clearenv')).toBeLessThan(argv.indexOf('--setenv'));
    expect(after(argv, '--setenv', 2)).toEqual([
      ['PATH', '/usr/local/bin:/usr/bin:/bin'],
      ['LANG', 'C.UTF-8'],
      ['HOME', '/tmp'],
      ['TMPDIR', '/tmp'],
    ]);
  });

  test('system read-only as the host lays it out; reads bound read-only, writes to the call dir', () => {
    const argv = sandboxArgv(call, host);
    expect(after(argv, '--ro-bind', 2)).toEqual([
      ['/usr', '/usr'],
      ['/lib', '/lib'],
      ['/etc/ld.so.cache', '/etc/ld.so.cache'],
      ['/srv/zones', '/srv/zones'],
    ]);
    expect(after(argv, '--symlink', 2)).toEqual([['usr/bin', '/bin']]);
    expect(after(argv, '--bind', 2)).toEqual([['/tmp/caesar-sandbox-x/call-1/w0', '/out']]);
    expect(after(argv, '--remount-ro', 1)).toEqual([['/']]);
    expect(after(argv, '--size', 3)).toEqual([[String(16 * 1024 * 1024), '--tmpfs', '/tmp']]);
  });

  test('RLIMIT_AS carries the memory limit only when no cgroup does', () => {
    expect(sandboxArgv(call, host).some((a) => a.startsWith('--as='))).toBe(false);
    expect(sandboxArgv({ ...call, memoryByRlimit: true }, host)).toContain(
      `--as=${256 * 1024 * 1024}`,
    );
  });
});
