import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Supervisor, type RestartInfo } from '../../../src/cli/stack/supervisor.js';
import type { ChildMessage } from '../../../src/cli/stack/messages.js';
import { isAlive } from '../../../src/process/process-tree.js';
import { alive } from '../../helpers/cli.js';
import { waitFor, within } from '../../helpers/wait.js';

/** A child that sends `messages` over its IPC channel, then waits to be stopped. */
function childSending(messages: unknown[]): string[] {
  const script = `for (const m of ${JSON.stringify(messages)}) process.send(m); setInterval(() => {}, 1000);`;
  return ['-e', script];
}

describe('Supervisor', () => {
  test('parses what a child sends: a well-formed message is passed on, a malformed one refused and named', async () => {
    const seen: [string, ChildMessage][] = [];
    const refused: [string, string][] = [];
    let done: () => void = () => undefined;
    const both = new Promise<void>((resolve) => (done = resolve));
    const supervisor = new Supervisor({
      onMessage: (name, message) => {
        seen.push([name, message]);
        if (refused.length > 0) done();
      },
      onMalformed: (name, problem) => {
        refused.push([name, problem]);
        if (seen.length > 0) done();
      },
    });
    const good = { type: 'worker_ready', instances: [{ tool: 'calculator', id: 'i1', host: 'h' }] };
    supervisor.start({
      name: 'calculator',
      command: process.execPath,
      args: childSending([{ type: 'ready', instances: 'all' }, good]),
    });
    try {
      await both;
    } finally {
      await supervisor.stop();
    }
    expect(seen).toEqual([['calculator', good]]);
    expect(refused).toHaveLength(1);
    expect(refused[0]![0]).toBe('calculator');
    expect(refused[0]![1]).toMatch(/^type: /);
  }, 30_000);
});

/**
 * Issue 28 (ADR 0070): a child whose event loop stops answering is killed and restarted; at
 * stop, one that does not go in time is killed, with whatever it started in a session of its
 * own; a child that reaches its heap ceiling is restarted saying so. Real processes, found by
 * pid.
 */

/** A child that beats every 100 ms and runs `then` (a script) after `afterMs`. */
function beatingChild(then: string, afterMs = 0): string[] {
  const script =
    "setInterval(() => process.send({ type: 'alive' }), 100);" +
    `setTimeout(() => { ${then} }, ${afterMs});`;
  return ['-e', script];
}

/** Resolves with the next value `register` hands over. */
function next<T>(register: (take: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve) => register(resolve));
}

describe('Supervisor: stuck, stubborn and swollen children', () => {
  test('a child whose loop blocks is killed within the timeout plus one interval, and restarted', async () => {
    const kills: [string, number, string][] = [];
    const restarts: RestartInfo[] = [];
    let restarted: (r: RestartInfo) => void = () => {};
    const supervisor = new Supervisor({
      heartbeatTimeoutMs: 2000,
      backoffMs: 50,
      onKill: (name, pid, why) => kills.push([name, pid, why]),
      onRestart: (_name, r) => {
        restarts.push(r);
        restarted(r);
      },
    });
    const firstRestart = next<RestartInfo>((take) => (restarted = take));
    supervisor.start({
      name: 'stuck',
      command: process.execPath,
      // spins once it has beaten for 300 ms: its timers (and signal handlers) never run again
      args: beatingChild('for (;;) {}', 300),
    });
    const stuckPid = supervisor.pids().stuck!;
    try {
      const r = await within(firstRestart, 'the stuck child to be restarted', 20_000);
      expect(r).toMatchObject({ reason: 'unresponsive', count: 1, pid: stuckPid });
      expect(r.exit).toEqual({ code: null, signal: 'SIGKILL' });
      expect(r.detail).toMatch(/^no heartbeat for \d+\.\d s$/);
      // killed after the timeout, and no later than one check interval past it
      const silentS = Number(/for (\d+\.\d) s/.exec(r.detail)![1]);
      expect(silentS).toBeGreaterThanOrEqual(2);
      expect(silentS).toBeLessThanOrEqual(2 + 0.5 + 0.6);
      expect(kills).toEqual([['stuck', stuckPid, r.detail]]);
      expect(alive(stuckPid)).toBe(false);
      // a new process, itself watched
      await waitFor(
        () => supervisor.pids().stuck !== undefined && supervisor.pids().stuck !== stuckPid,
        'the new child',
      );
    } finally {
      await supervisor.stop();
    }
    expect(alive(supervisor.pids().stuck!)).toBe(false);
  }, 60_000);

  test('at stop, a child that ignores SIGTERM is killed at the grace period, and so is what it started in a session of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'caesar-stubborn-'));
    const grandchildFile = join(dir, 'grandchild.pid');
    // the child ignores SIGTERM and starts a shell in a new session that ignores it too
    const then =
      "process.on('SIGTERM', () => {});" +
      "const c = require('node:child_process').spawn('/bin/sh', ['-c', 'trap \"\" TERM; echo $$ > " +
      grandchildFile +
      "; while :; do sleep 1; done'], { detached: true, stdio: 'ignore' }); c.unref();";
    const kills: [string, string][] = [];
    const supervisor = new Supervisor({
      stopGraceMs: 1500,
      onKill: (name, _pid, why) => kills.push([name, why]),
    });
    try {
      supervisor.start({ name: 'stubborn', command: process.execPath, args: beatingChild(then) });
      const pid = supervisor.pids().stubborn!;
      const grandchild = await waitFor(async () => {
        const text = await readFile(grandchildFile, 'utf8').catch(() => '');
        return Number(text.trim()) || undefined;
      }, 'the grandchild to write its pid');
      expect(alive(grandchild)).toBe(true);
      const started = performance.now();
      const killed = await within(supervisor.stop(), 'stop', 15_000);
      const tookMs = performance.now() - started;
      expect(killed).toEqual(['stubborn']);
      expect(kills).toEqual([['stubborn', 'did not stop within 1.5 s of SIGTERM']]);
      expect(tookMs).toBeGreaterThanOrEqual(1400);
      expect(alive(pid)).toBe(false);
      // dead (this container's init may leave its zombie entry: not running, holding nothing)
      expect(isAlive(grandchild)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test('a child that reaches its heap ceiling is restarted, saying so', async () => {
    let restarted: (r: RestartInfo) => void = () => {};
    const first = next<RestartInfo>((take) => (restarted = take));
    const supervisor = new Supervisor({
      backoffMs: 50,
      onRestart: (_name, r) => restarted(r),
    });
    try {
      supervisor.start({
        name: 'hog',
        command: process.execPath,
        heapLimitMb: 48,
        args: [
          '--max-old-space-size=48',
          ...beatingChild(
            'const keep = []; setInterval(() => { for (let i = 0; i < 4; i++) keep.push(new Array(1 << 17).fill(i)); }, 5);',
          ),
        ],
      });
      const pid = supervisor.pids().hog!;
      const r = await within(first, 'the hog to be restarted', 30_000);
      expect(r).toMatchObject({ reason: 'memory', detail: 'V8 heap limit (48 MB) reached', pid });
      expect(alive(pid)).toBe(false);
    } finally {
      await supervisor.stop();
    }
  }, 60_000);

  test('killNow ends a spinning child at once', async () => {
    const supervisor = new Supervisor({ heartbeatTimeoutMs: 0 });
    supervisor.start({ name: 'spin', command: process.execPath, args: ['-e', 'for (;;) {}'] });
    const pid = supervisor.pids().spin!;
    supervisor.killNow();
    await waitFor(() => !alive(pid), 'the spinning child to be gone', 5000);
  }, 30_000);
});

describe('Supervisor: a child that cannot be spawned', () => {
  test('is retried with the same backoff as a crash, each restart naming the command', async () => {
    const command = '/nonexistent/caesar-no-such-command';
    const restarts: RestartInfo[] = [];
    let third: () => void = () => {};
    const thrice = new Promise<void>((resolve) => (third = resolve));
    const supervisor = new Supervisor({
      heartbeatTimeoutMs: 0,
      backoffMs: 10,
      maxBackoffMs: 40,
      onRestart: (_name, restart) => {
        restarts.push(restart);
        if (restarts.length === 3) third();
      },
    });
    supervisor.start({ name: 'missing', command, args: [] });
    try {
      await within(thrice, 'three restarts of the missing command', 10_000);
    } finally {
      await within(supervisor.stop(), 'the supervisor to stop', 5000);
    }
    expect(restarts.map((r) => r.delayMs)).toEqual([10, 20, 40]);
    for (const r of restarts) {
      expect(r).toMatchObject({ reason: 'exited', pid: undefined });
      expect(r.detail).toBe(`could not start ${command}: spawn ${command} ENOENT`);
    }
    expect(supervisor.pids()).toEqual({ missing: undefined });
  }, 30_000);
});
