import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  startCalculatorProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import type { RunningCli } from '../../helpers/cli.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

/**
 * Issue 11, finding 5, on the running brain: with its data files made immutable for real
 * (`chattr +i`, which stops root too) the brain used to die of SIGBUS mid-request. Now every
 * request gets an answer, nothing is dispatched without its audit row, `/readyz` says why,
 * and all of it recovers by itself once the files are writable again. Needs root and a
 * filesystem with immutable files (the CI machine's); elsewhere it fails, saying so.
 */
const POLICY = 'version: 1\nallowed_tools: [calculator]\n';
const FILES = ['audit.db', 'audit.db-wal', 'audit.db-shm', 'conversations.db'];
const FILES_ALL = [...FILES, 'conversations.db-wal', 'conversations.db-shm'];

function chattr(flag: '+i' | '-i', files: string[]): void {
  const present = files.filter((f) => existsSync(f));
  if (present.length === 0) return;
  const r = spawnSync('chattr', [flag, ...present], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`chattr ${flag} failed: ${r.stderr || String(r.error)}`);
}

describe('a brain whose data files turn read-only', () => {
  let nats: TestNats;
  let dir: string;
  let dataDir: string;
  let brain: BrainProcess;
  let calculator: RunningCli;
  const data = (names: string[]) => names.map((n) => join(dataDir, n));
  const invoke = () =>
    callBrain(brain, 'POST', '/v1/tools/calculator/invoke', { input: { expression: '6*7' } });
  const alive = () => brain.proc.child.exitCode === null && brain.proc.child.signalCode === null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'caesar-readonly-'));
    dataDir = join(dir, 'var');
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    nats = await startNats();
    calculator = startCalculatorProcess(nats.url);
    brain = await startBrainProcess({
      natsUrl: nats.url,
      dataDir,
      policyFile: join(dir, 'policy.yaml'),
    });
    await pollBrain(
      async () => (await invoke()).body?.outcome === 'ok',
      'a first calculator call through the brain',
      20_000,
    );
    // a chat creates conversations.db and its WAL, so both stores are exposed below
    expect((await callBrain(brain, 'POST', '/v1/chat', { message: 'what is 2 + 3' })).status).toBe(
      200,
    );
  }, 60_000);

  afterAll(async () => {
    if (dataDir !== undefined) chattr('-i', data(FILES_ALL));
    await Promise.all([stopProcess(brain?.proc), stopProcess(calculator)]);
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test('immutable: every request is answered, nothing runs unaudited; writable: it recovers alone', async () => {
    const before = await callBrain(brain, 'GET', '/v1/audit/counts');
    expect(before.status).toBe(200);
    chattr('+i', data(FILES_ALL));

    const call = await invoke();
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ outcome: 'failed', error: { code: 'audit_unavailable' } });
    expect(alive()).toBe(true);

    const ready = await callBrain(brain, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.stringify(ready.body)).toMatch(/not writable \(EPERM\)/);

    const read = await callBrain(brain, 'GET', '/v1/audit?limit=5');
    expect(read.status).toBe(503);
    expect(read.body).toMatchObject({ error: { code: 'audit_unavailable' } });

    const chat = await callBrain(brain, 'POST', '/v1/chat', { message: 'what is 2 + 3' });
    expect(chat.status).toBeGreaterThanOrEqual(200);
    expect(alive()).toBe(true);

    chattr('-i', data(FILES_ALL));
    await pollBrain(
      async () => (await callBrain(brain, 'GET', '/readyz')).status === 200,
      '/readyz to be ready again without a restart',
      15_000,
    );
    const again = await invoke();
    expect(again.body).toMatchObject({ outcome: 'ok', result: { value: 42 } });
    const after = await callBrain(brain, 'GET', '/v1/audit?limit=5&order=newest');
    expect(after.status).toBe(200);
    const chain = await callBrain(brain, 'POST', '/v1/chat', { message: 'what is 2 + 3' });
    expect(chain.status).toBe(200);
    expect(alive()).toBe(true);
  }, 60_000);
});
