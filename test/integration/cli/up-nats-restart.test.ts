import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstToken } from '../../helpers/tokens.js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { alive, startCli, type RunningCli } from '../../helpers/cli.js';
import { natsServerPid } from '../../helpers/nats.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * Issue 11, finding 6: a nats-server killed under `caesar up` used to stay dead, silently.
 * `caesar up` now says so, starts it again on the same port with the same config, and the
 * brain and the workers reconnect by themselves.
 */

let dir: string;
let up: RunningCli | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-up-nats-'));
});
afterEach(async () => {
  if (up && up.child.exitCode === null) up.child.kill('SIGKILL');
  up = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('caesar up supervises nats-server', () => {
  test('a nats-server killed with SIGKILL is said, restarted on the same port, and calls work again', async () => {
    up = startCli(
      ['up', '--nats-port', '0', '--api-port', '0', '--tools', 'calculator', '--data-dir', dir],
      { CAESAR_LOG__LEVEL: 'warn' },
    );
    await up.waitForLine(/^ready: /, 60_000);
    const started = /^nats-server\s+(nats:\/\/\S+)\s+\(pid (\d+)/m.exec(up.lines.join('\n'));
    expect(started).not.toBeNull();
    const url = started![1]!;
    const killed = natsServerPid(Number(started![2]));

    const runtime = JSON.parse(await readFile(join(dir, 'runtime.json'), 'utf8')) as {
      api_url: string;
      token_file: string;
    };
    const token = await firstToken(runtime.token_file);
    const invoke = async (expression: string) => {
      const res = await fetch(`${runtime.api_url}/v1/tools/calculator/invoke`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ input: { expression } }),
      });
      return (await res.json()) as { outcome: string; result?: unknown };
    };
    expect(await invoke('6 * 7')).toMatchObject({ outcome: 'ok', result: { value: 42 } });

    process.kill(killed, 'SIGKILL');
    const port = new URL(url).port;
    await up.waitForLine(
      new RegExp(`^nats-server\\s+exited \\(SIGKILL\\); restarting on port ${port} in \\d+ ms`),
      15_000,
    );
    const restarted = await up.waitForLine(/^nats-server\s+\S+\s+\(pid \d+\) restarted/, 30_000);
    expect(restarted).toContain(url); // same port, so every client finds it again
    const newPid = natsServerPid(Number(/\(pid (\d+)\)/.exec(restarted)![1]));
    expect(newPid).not.toBe(killed);
    expect(alive(killed)).toBe(false);

    // the brain and the calculator reconnect by themselves; poll at the API's rate limit pace
    const back = await waitFor(
      async () => {
        const r = await invoke('2 + 3');
        return r.outcome === 'ok' ? r : undefined;
      },
      'a calculator call to work again after the restart',
      30_000,
      150,
    );
    expect(back.result).toMatchObject({ value: 5 });

    up.child.kill('SIGINT');
    expect(await up.exited).toEqual({ code: 0, signal: null });
    await waitFor(() => !alive(newPid), 'the restarted nats-server to stop with caesar up', 15_000);
  }, 150_000);
});
