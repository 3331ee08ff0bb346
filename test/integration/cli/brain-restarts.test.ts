import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChildMessage, SupervisorMessage } from '../../../src/cli/stack/messages.js';
import { assertBuilt, CLI, runCli } from '../../helpers/cli.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { waitFor, within } from '../../helpers/wait.js';

/** Under a supervisor the brain seeds no files: `caesar up` passes them; the shipped intents. */
const INTENTS = fileURLToPath(new URL('../../../config/intents.yaml', import.meta.url));

// Issue 28: `caesar up` tells its brain of every restart over the IPC channel; the brain
// writes each valid `child_restarted` as one `worker.restarted` row, refuses a malformed one
// with a warn line naming its fields, and the listener never holds the brain open at stop.

const restarted: SupervisorMessage = {
  type: 'child_restarted',
  name: 'calculator',
  kind: 'worker',
  reason: 'unresponsive',
  detail: 'no heartbeat for 10.0 s',
  count: 2,
  pid: 4242,
  exit: { code: null, signal: 'SIGKILL' },
  at: '2026-12-04T10:00:00.000Z',
  delay_ms: 500,
};

describe('caesar brain under a supervisor', () => {
  let nats: TestNats;
  let dir: string;
  let brain: ChildProcess;
  let stderr = '';

  beforeAll(async () => {
    assertBuilt();
    nats = await startNats();
    dir = mkdtempSync(join(tmpdir(), 'caesar-brain-restarts-'));
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'version: 1\nallowed_tools:\n  - tool: calculator\n');
    brain = spawn(
      process.execPath,
      [
        CLI,
        'brain',
        '--nats-url',
        nats.url,
        '--data-dir',
        dir,
        '--api-port',
        '0',
        '--policy',
        policy,
        '--intents',
        INTENTS,
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
    );
    brain.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const ready = new Promise<ChildMessage>((resolve) =>
      brain.on('message', (m: ChildMessage) => {
        if (m.type === 'brain_ready') resolve(m);
      }),
    );
    const failed = new Promise<never>((_, reject) =>
      brain.once('exit', (code) => reject(new Error(`the brain exited (${code}): ${stderr}`))),
    );
    await within(Promise.race([ready, failed]), 'brain_ready', 30_000);
  }, 60_000);

  afterAll(async () => {
    if (brain.exitCode === null && brain.signalCode === null) brain.kill('SIGKILL');
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('one worker.restarted row per valid message; a malformed one is refused and logged', async () => {
    brain.send({ ...restarted, count: 0, reason: 'bored', extra: 1 });
    brain.send(restarted);
    const rows = await waitFor(
      async () => {
        const run = await runCli([
          'audit',
          'query',
          '--db',
          join(dir, 'audit.db'),
          '--type',
          'worker.restarted',
          '--json',
        ]);
        const lines = run.stdout.split('\n').filter((l) => l.trim() !== '');
        return lines.length > 0
          ? lines.map((l) => JSON.parse(l) as Record<string, unknown>)
          : undefined;
      },
      'a worker.restarted row',
      20_000,
      200,
    );
    expect(rows).toHaveLength(1);
    const { type: _type, ...fields } = restarted;
    expect(rows[0]).toMatchObject({
      event_type: 'worker.restarted',
      actor: 'brain',
      tool: 'calculator',
      outcome: 'error',
      payload: fields,
    });
    // the malformed message came first, so it was handled before the row was written
    const refused = stderr.split('\n').find((l) => l.includes('supervisor message'));
    expect(refused).toBeDefined();
    expect(refused).toContain('count');
    expect(refused).toContain('reason');
  }, 40_000);

  test('stops on SIGTERM with the listener attached, and the chain verifies', async () => {
    brain.kill('SIGTERM');
    const exit = await within(
      new Promise<number | null>((resolve) => brain.once('exit', (code) => resolve(code))),
      'the brain to exit',
      20_000,
    );
    expect(exit).toBe(0);
    const verify = await runCli(['audit', 'verify', '--db', join(dir, 'audit.db'), '--json']);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });
    expect(verify.code).toBe(0);
  }, 40_000);
});
