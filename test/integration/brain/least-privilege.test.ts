import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { brainPermissions, workerPermissions } from '../../../src/protocol/index.js';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  startCalculatorProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { runCli, type RunningCli } from '../../helpers/cli.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

/**
 * The multi-host setup of docs/operations.md, on one machine: the brain and the calculator
 * each under their own NKEY, each allowed only the subjects `brainPermissions()` and
 * `workerPermissions()` grant. Discovery, preflight and dispatch must all work inside them.
 */
describe('brain and worker under least-privilege NKEY identities', () => {
  let dir: string;
  let nats: TestNats;
  let brain: BrainProcess | undefined;
  let calculator: RunningCli | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-brain-perm-'));
    const ids = { brain: createUser(), calculator: createUser() };
    for (const [name, kp] of Object.entries(ids)) {
      await writeFile(join(dir, `${name}.nk`), `${new TextDecoder().decode(kp.getSeed())}\n`, {
        mode: 0o600,
      });
    }
    // the server config of docs/operations.md, each block pasted as `caesar legion
    // permissions` prints it
    const block = async (args: string[]) =>
      (await runCli(['legion', 'permissions', ...args])).stdout;
    const config = [
      'authorization: {',
      '  users: [',
      `    { nkey: ${ids.calculator.getPublicKey()}, permissions: ${await block(['calculator'])} },`,
      `    { nkey: ${ids.brain.getPublicKey()}, permissions: ${await block(['--brain'])} },`,
      '  ]',
      '}',
      '',
    ].join('\n');
    nats = await startNats({ config });
    await writeFile(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - calculator\n');
    // the brain signs every dispatch with its NKEY; the worker runs only what it signed
    calculator = startCalculatorProcess(nats.url, [
      '--nkey-seed-file',
      join(dir, 'calculator.nk'),
      '--trusted-brain',
      ids.brain.getPublicKey(),
    ]);
    brain = await startBrainProcess({
      natsUrl: nats.url,
      dataDir: join(dir, 'var'),
      policyFile: join(dir, 'policy.yaml'),
      args: ['--nkey-seed-file', join(dir, 'brain.nk'), '--inbox-identity', 'brain'],
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([stopProcess(brain?.proc), stopProcess(calculator)]);
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  test('`caesar legion permissions` prints the blocks this test pastes into the server config', async () => {
    const r = await runCli(['legion', 'permissions', '--brain']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(brainPermissions('brain'));
    const worker = await runCli(['legion', 'permissions', 'calculator']);
    expect(JSON.parse(worker.stdout)).toEqual(workerPermissions(['calculator']));
    const both = await runCli(['legion', 'permissions', 'calculator', '--brain']);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/either tool names or --brain/);
  });

  test('the brain discovers the calculator, reads its preflight and dispatches to it', async () => {
    const b = brain as BrainProcess;
    const tools = await pollBrain(async () => {
      const r = await callBrain(b, 'GET', '/v1/tools');
      const list = r.body as { name: string; preflight: { ok: boolean | null } }[];
      return list.find((t) => t.name === 'calculator' && t.preflight.ok !== null);
    }, 'the brain to discover the calculator and read its preflight');
    expect(tools.preflight.ok).toBe(true);

    const r = await callBrain(b, 'POST', '/v1/chat', { message: 'what is 17 * 23' });
    expect(r.status).toBe(200);
    expect((r.body as { reply: string }).reply).toBe('17 * 23 = 391');
    const ready = await callBrain(b, 'GET', '/readyz');
    expect(ready.status).toBe(200);
  });
});
