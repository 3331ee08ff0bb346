import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_LIMITS,
  defineCommandTool,
  Sandbox,
  SandboxCpuLimitError,
  SandboxMemoryLimitError,
  SandboxOutputLimitError,
  SandboxTimeLimitError,
  SandboxUnavailableError,
  TimeoutError,
  type CommandLimits,
  type SandboxCommand,
  type SandboxOptions,
  type ToolContext,
  type ToolStartContext,
} from '../../../src/legion/index.js';
import { findCgroupBase } from '../../../src/legion/sandbox/cgroup.js';
import { pidsWithMarker } from '../../helpers/proc.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * The sandbox for real (issue 33, ADR 0097): bubblewrap, prlimit and the kernel's limits on
 * this machine, no stand-ins. Each test names what the sandbox must stop.
 */

let scratch: string;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'caesar-sandbox-test-'));
});

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.stop()));
  await rm(scratch, { recursive: true, force: true });
});

function sandbox(
  program: string,
  more: Partial<Omit<SandboxCommand, 'limits'>> & { limits?: CommandLimits } = {},
  options: SandboxOptions = {},
): Sandbox {
  const s = new Sandbox(
    {
      program,
      read: [],
      write: [],
      network: false,
      ...more,
      limits: { ...DEFAULT_LIMITS, ...more.limits },
    },
    { scratchDir: scratch, ...options },
  );
  sandboxes.push(s);
  return s;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (r) => {
      throw new Error(`expected a failure, got ${JSON.stringify(r)}`);
    },
    (e: unknown) => e,
  );
}

/** A marker no other process on the machine has in its argv: a sleep of this many seconds. */
function marker(): string {
  return String(900_000 + Math.floor(Math.random() * 99_999));
}

describe('arguments are data', () => {
  test.each([
    ['a shell command after an option', '--help; rm -rf /'],
    ["ssh's option injection", '-oProxyCommand=touch /tmp/pwned'],
    ["dig's server and option syntax", '@198.51.100.1'],
    ['command substitution', '$(id) `id`'],
    ['quotes and a newline', `'; ls "\n`],
    ['a glob', '/*'],
  ])('%s reaches the program as one literal argv entry', async (_what, hostile) => {
    const s = sandbox('/usr/bin/printf');
    const r = await s.run(['[%s]\\n', hostile, '-x']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`[${hostile}]\n[-x]\n`);
  });
});

describe('what the program can reach', () => {
  test("a secret file in the worker's data dir cannot be read, even with another dir bound", async () => {
    const dataDir = await mkdtemp(join(scratch, 'data-'));
    const shared = await mkdtemp(join(scratch, 'shared-'));
    await writeFile(join(dataDir, 'worker.nk'), 'SUAEXAMPLESEEDNEVERTOBEREAD');
    await writeFile(join(shared, 'ok.txt'), 'readable');
    const s = sandbox('/usr/bin/cat', { read: [shared] });
    const r = await s.run(['--', join(shared, 'ok.txt'), join(dataDir, 'worker.nk')]);
    expect(r.stdout).toBe('readable');
    expect(r.stdout + r.stderr).not.toContain('SUAEXAMPLESEED');
    expect(r.stderr).toContain('No such file or directory');
    expect(r.exitCode).not.toBe(0);
  });

  test('a bound read dir is read-only, and the system is too', async () => {
    const shared = await mkdtemp(join(scratch, 'ro-'));
    const s = sandbox('/usr/bin/touch', { read: [shared] });
    const r = await s.run(['--', join(shared, 'new'), '/usr/new', '/etc/new']);
    expect(r.exitCode).not.toBe(0);
    expect(await readdir(shared)).toEqual([]);
    expect(r.stderr.match(/Read-only file system/g)?.length).toBe(3);
  });

  test("the worker's environment does not reach the program", async () => {
    process.env.CAESAR_SANDBOX_TEST_SECRET = 'hunter2-in-the-worker';
    try {
      const r = await sandbox('/usr/bin/env').run([]);
      expect(r.stdout).not.toContain('hunter2');
      expect(r.stdout.trim().split('\n').sort()).toEqual([
        'HOME=/tmp',
        'LANG=C.UTF-8',
        'PATH=/usr/local/bin:/usr/bin:/bin',
        'PWD=/tmp',
        'TMPDIR=/tmp',
      ]);
    } finally {
      delete process.env.CAESAR_SANDBOX_TEST_SECRET;
    }
  });

  describe('network', () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.end('hello from outside\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const connect = (p: number): string[] => [
      '-c',
      `exec 3<>/dev/tcp/127.0.0.1/${p} && head -n1 <&3`,
    ];

    test('without network, a socket to a listener on the host loopback fails', async () => {
      const before = connections;
      const r = await sandbox('/usr/bin/bash').run(connect(port));
      expect(r.exitCode).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/Connection refused|Network is unreachable|Cannot assign/);
      expect(connections).toBe(before);
    });

    test('with network declared, the same socket connects (the control)', async () => {
      const r = await sandbox('/usr/bin/bash', { network: true }).run(connect(port));
      expect(r.stdout).toBe('hello from outside\n');
      expect(r.exitCode).toBe(0);
    });
  });
});

describe('limits, each a typed error', () => {
  test('a busy loop is killed at its CPU limit: sandbox_cpu_limit', async () => {
    const s = sandbox('/usr/bin/sh', { limits: { cpuSeconds: 1, timeoutMs: 60_000 } });
    const err = await failure(s.run(['-c', 'while :; do :; done']));
    expect(err).toBeInstanceOf(SandboxCpuLimitError);
    expect(err).toMatchObject({ code: 'sandbox_cpu_limit', retryable: false });
  });

  test('memory past the limit is an OOM kill in a cgroup: sandbox_memory_limit', async () => {
    const s = sandbox(
      '/usr/bin/perl',
      { limits: { memoryMb: 64, timeoutMs: 60_000 } },
      { memory: 'cgroup' },
    );
    expect(await s.memoryMode()).toBe('cgroup');
    const err = await failure(s.run(['-e', '$x = "a" x 500_000_000; print length $x']));
    expect(err).toBeInstanceOf(SandboxMemoryLimitError);
    expect((err as Error).message).toContain('64 MB');
    // the call's cgroup is gone with the call
    const base = await findCgroupBase();
    expect('dir' in base).toBe(true);
    const left = (await readdir((base as { dir: string }).dir)).filter((e) =>
      e.startsWith(`caesar-call-${process.pid}-`),
    );
    expect(left).toEqual([]);
  });

  test('without a cgroup, RLIMIT_AS makes the allocation fail: the program says so, untyped', async () => {
    const s = sandbox(
      '/usr/bin/perl',
      { limits: { memoryMb: 64, timeoutMs: 60_000 } },
      { memory: 'rlimit' },
    );
    expect(await s.memoryMode()).toBe('rlimit');
    const r = await s.run(['-e', '$x = "a" x 500_000_000; print length $x']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Out of memory');
    expect(r.exitCode).not.toBe(0);
  });

  test('a fork bomb meets the pids limit of its cgroup and leaves nothing', async () => {
    const m = marker();
    const s = sandbox('/usr/bin/sh', { limits: { processes: 16 } }, { memory: 'cgroup' });
    const r = await s.run([
      '-c',
      `i=0; while [ $i -lt 200 ]; do sleep ${m} & i=$((i+1)); done; echo looped`,
    ]);
    // the shell cannot fork past the limit and gives up: it never gets to the end of its loop
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/fork/i);
    expect(r.exitCode).not.toBe(0);
    await waitFor(() => pidsWithMarker(m).length === 0, `no process with marker ${m}`);
  });

  test('past its time limit the sandbox is killed with all it started: sandbox_time_limit', async () => {
    const m = marker();
    const s = sandbox('/usr/bin/sh', { limits: { timeoutMs: 500 } });
    const err = await failure(
      s.run(['-c', `(setsid sleep ${m} &); sleep ${m} & echo started; wait`]),
    );
    expect(err).toBeInstanceOf(SandboxTimeLimitError);
    expect(err).toMatchObject({ code: 'sandbox_time_limit', retryable: true });
    await waitFor(() => pidsWithMarker(m).length === 0, `no process with marker ${m}`);
  });

  test('a background grandchild does not outlive a call that ended by itself', async () => {
    const m = marker();
    const r = await sandbox('/usr/bin/sh').run(['-c', `sleep ${m} & echo spawned`]);
    expect(r).toEqual({ stdout: 'spawned\n', stderr: '', exitCode: 0 });
    await waitFor(() => pidsWithMarker(m).length === 0, `no process with marker ${m}`);
  });

  test('more output than the limit kills the sandbox: sandbox_output_limit', async () => {
    const s = sandbox('/usr/bin/yes', { limits: { outputBytes: 10_000 } });
    const err = await failure(s.run([]));
    expect(err).toBeInstanceOf(SandboxOutputLimitError);
    expect((err as Error).message).toContain('stdout');
  });

  test("the call's deadline ends the sandbox: timeout, nothing left", async () => {
    const m = marker();
    const s = sandbox('/usr/bin/sleep');
    const controller = new AbortController();
    const running = s.run([m], controller.signal);
    await waitFor(() => pidsWithMarker(m).length > 0, 'the sleep to start');
    controller.abort();
    expect(await failure(running)).toBeInstanceOf(TimeoutError);
    await waitFor(() => pidsWithMarker(m).length === 0, `no process with marker ${m}`);
  });
});

describe('scratch', () => {
  test("each call's /tmp and writable dirs are fresh and gone after it; stop leaves nothing", async () => {
    const own = await mkdtemp(join(scratch, 'own-'));
    const s = sandbox('/usr/bin/sh', { write: ['/out'] }, { scratchDir: own });
    const script = 'ls -A /out /tmp; echo x > /out/f; echo y > /tmp/g';
    const first = await s.run(['-c', script]);
    expect(first.stdout).toBe('/out:\n\n/tmp:\n');
    const second = await s.run(['-c', script]);
    expect(second.stdout).toBe(first.stdout);
    const [root] = await readdir(own);
    expect(root).toMatch(/^caesar-sandbox-/);
    expect(await readdir(join(own, root!))).toEqual([]);
    await s.stop();
    expect(await readdir(own)).toEqual([]);
  });
});

describe('when the sandbox cannot run', () => {
  test('missing bubblewrap: sandbox_unavailable naming the package', async () => {
    const s = sandbox('/usr/bin/true', {}, { bwrap: '/nonexistent/bwrap' });
    const err = await failure(s.run([]));
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toContain('apt-get install bubblewrap');
    expect(await s.checks()).toEqual([expect.objectContaining({ name: 'sandbox', ok: false })]);
  });

  test('a missing program: the package to install, in the error and the preflight', async () => {
    const s = sandbox('/usr/bin/caesar-no-such-program', { package: 'caesar-tools' });
    const err = await failure(s.run([]));
    expect((err as Error).message).toContain(
      '/usr/bin/caesar-no-such-program is not installed: apt-get install caesar-tools',
    );
    expect((await sandbox('/usr/bin/true').checks())[0]).toMatchObject({ ok: true });
  });

  test('the preflight says how the memory limit is enforced, and when it is not typed', async () => {
    const rlimit = await sandbox('/usr/bin/true', {}, { memory: 'rlimit' }).checks();
    expect(rlimit[1]).toMatchObject({ name: 'sandbox memory limit', ok: true });
    expect(rlimit[1]?.detail).toContain('no memory error of its own');
    const cgroup = await sandbox('/usr/bin/true', {}, { memory: 'cgroup' }).checks();
    expect(cgroup[1]?.detail).toMatch(/^cgroup v[12] .*sandbox_memory_limit$/);
  });
});

describe('defineCommandTool', () => {
  test('a call runs the program on the validated input; preflight and stop go to the sandbox', async () => {
    const input = z.strictObject({ word: z.string() });
    const own = await mkdtemp(join(scratch, 'tool-'));
    const tool = defineCommandTool({
      name: 'echo_word',
      version: '1.0.0',
      description: 'Echoes one word.',
      input,
      output: z.object({ echoed: z.string(), exit: z.number() }),
      annotations: { readOnly: true, openWorld: false },
      command: { program: '/usr/bin/printf', args: ({ word }) => ['%s', word] },
      parse: ({ stdout, exitCode }) => ({ echoed: stdout, exit: exitCode }),
      sandbox: { scratchDir: own },
    });
    const ctx = { signal: new AbortController().signal } as ToolContext;
    expect(await tool.handler({ word: '-oProxyCommand=id' }, ctx)).toEqual({
      echoed: '-oProxyCommand=id',
      exit: 0,
    });
    const startCtx = {} as ToolStartContext;
    expect(await tool.preflight?.(startCtx)).toMatchObject({ ok: true });
    await expect(tool.handler({ word: 'a\0b' }, ctx)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await tool.stop?.();
    expect(await readdir(own)).toEqual([]);
  });
});
