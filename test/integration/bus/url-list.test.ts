import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { startNatsServer } from '../../../src/bus/index.js';
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

// Issue 14, scope 3: the brain, a worker and a CLI command each pass the whole `bus.url` list
// to the NATS client. The only live server is the last in a list of four, on its own (no
// cluster to learn it from): a part that kept only the first URL would never connect.

let nats: TestNats | undefined;
let dir: string | undefined;
let brain: BrainProcess | undefined;
let calculator: RunningCli | undefined;

afterEach(async () => {
  await stopProcess(brain?.proc);
  await stopProcess(calculator);
  await nats?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  nats = dir = brain = calculator = undefined;
});

/** URLs of loopback ports nothing listens on (a server started, then stopped). */
async function deadUrls(n: number): Promise<string[]> {
  const servers = await Promise.all(Array.from({ length: n }, () => startNatsServer()));
  await Promise.all(servers.map((s) => s.stop()));
  return servers.map((s) => s.url);
}

test('brain, worker and legion list connect through a URL list whose first three servers are down', async () => {
  nats = await startNats();
  dir = await mkdtemp(join(tmpdir(), 'caesar-url-list-'));
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, 'version: 1\nallowed_tools:\n  - tool: calculator\n');
  const list = [...(await deadUrls(3)), nats.url].join(',');

  calculator = startCalculatorProcess(list);
  brain = await startBrainProcess({ natsUrl: list, dataDir: join(dir, 'var'), policyFile });
  const invoked = await pollBrain(
    async () => {
      const r = await callBrain(brain!, 'POST', '/v1/tools/calculator/invoke', {
        input: { expression: '17 * 23' },
      });
      return r.status === 200 && (r.body as { outcome: string }).outcome === 'ok' ? r : undefined;
    },
    'a calculator call through the brain',
    30_000,
  );
  expect(invoked.body).toMatchObject({ result: { value: 391 } });

  const listed = await runCli(['legion', 'list', '--nats-url', list]);
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(/^calculator\s+\S+\s+1\s/m);
}, 60_000);
