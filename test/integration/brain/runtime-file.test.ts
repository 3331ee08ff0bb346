import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readRuntimeFile } from '../../../src/config/index.js';
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

// Issue 14, scope 2: `caesar brain` run alone publishes runtime.json as `caesar up` does, so
// client commands need no --api-url or --token-file.

describe('caesar brain run alone', () => {
  let nats: TestNats;
  let dir: string;
  let policyFile: string;
  let brain: BrainProcess | undefined;
  let calculator: RunningCli | undefined;

  beforeAll(async () => {
    nats = await startNats();
    dir = mkdtempSync(join(tmpdir(), 'caesar-brain-runtime-'));
    policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, 'version: 1\nallowed_tools:\n  - tool: calculator\n');
    calculator = startCalculatorProcess(nats.url);
    brain = await startBrainProcess({ natsUrl: nats.url, dataDir: dir, policyFile });
    await pollBrain(
      async () =>
        ((await callBrain(brain!, 'GET', '/v1/tools')).body as { name: string }[]).some?.(
          (t) => t.name === 'calculator',
        ),
      'the brain to discover the calculator',
      30_000,
    );
  }, 60_000);

  afterAll(async () => {
    await stopProcess(brain?.proc);
    await stopProcess(calculator);
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('publishes runtime.json naming its API, tokens, NATS and files, and no tools', async () => {
    const info = await readRuntimeFile(dir);
    expect(info).toMatchObject({
      pid: brain!.proc.child.pid,
      data_dir: dir,
      nats_url: nats.url,
      api_url: brain!.url,
      token_file: join(dir, 'api-tokens.yaml'),
      token_name: 'operator',
      audit_db: join(dir, 'audit.db'),
      policy_file: policyFile,
      tools: [],
    });
    expect(info?.nats_seed_file).toBeUndefined();
    expect(brain!.proc.lines).toContain(
      `runtime: ${join(dir, 'runtime.json')} (client commands find this brain)`,
    );
  });

  test('a client command finds it through the data dir alone', async () => {
    const run = await runCli([
      'invoke',
      'calculator',
      '{"expression":"17 * 23"}',
      '--data-dir',
      dir,
    ]);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('391'),
      stderr: '',
    });
  }, 60_000);

  test('a second brain on the same data dir is refused, naming the first', async () => {
    const run = await runCli([
      'brain',
      '--nats-url',
      nats.url,
      '--data-dir',
      dir,
      '--api-port',
      '0',
      '--policy',
      policyFile,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `another caesar up or caesar brain (pid ${brain!.proc.child.pid}) is running with data dir ${dir}`,
    );
  }, 60_000);

  test('removes runtime.json when it stops', async () => {
    await stopProcess(brain!.proc);
    expect(brain!.proc.child.exitCode).toBe(0);
    expect(existsSync(join(dir, 'runtime.json'))).toBe(false);
  }, 30_000);
});
