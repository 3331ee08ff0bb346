import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { discoverServices } from '../../../../../src/brain/registry/index.js';
import { startCalculatorProcess, stopProcess } from '../../../../helpers/brain.js';
import { runCli } from '../../../../helpers/cli.js';
import { startNats } from '../../../../helpers/nats.js';
import { waitFor } from '../../../../helpers/wait.js';

// Issue 31 (ADR 0091): `caesar legion list` applies the operator's `tools.limits` to each
// preflight answer as the brain does, so its PREFLIGHT column says which tools' calls will
// wait for a human. The calculator asks for 256 MB (memory_mb), beyond a 0.2 GB limit.

/** Each spawn of the CLI takes about a second of CPU, several on a loaded machine. */
const SPAWNING_TEST_MS = 90_000;
const LIMIT = { CAESAR_TOOLS__LIMITS__MAX_MEMORY_GB: '0.2' };
const WARNING = 'memory_mb: the tool asks for 0.3 GB of memory; tools.limits.max_memory_gb is 0.2';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-legion-list-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test(
  'a tool beyond tools.limits is listed as "ready, warns" with the warning below the table',
  async () => {
    await using nats = await startNats();
    const worker = startCalculatorProcess(nats.url);
    try {
      const nc = await nats.connect();
      await waitFor(
        async () => (await discoverServices(nc, { windowMs: 200 })).length === 1,
        'the calculator worker to be discovered',
        60_000,
      );
      const list = (args: string[], env = {}) =>
        runCli(['legion', 'list', '--nats-url', nats.url, '--data-dir', dir, ...args], env);

      const table = await list(['--wait', '1000'], LIMIT);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^calculator\s+1\.0\.0\s+1\s.*\sready, warns\s+0$/m);
      expect(table.stdout).toContain(`calculator: ready, warns: ${WARNING}`);

      const json = await list(['--json'], LIMIT);
      const [tool] = JSON.parse(json.stdout) as { preflight: unknown }[];
      expect(tool?.preflight).toMatchObject({ state: 'ready', warns: true, detail: [WARNING] });

      // without the limit the same tool is plainly ready, and nothing is said below the table
      const plain = await list(['--wait', '1000']);
      expect(plain.stdout).toMatch(/^calculator\s+1\.0\.0\s+1\s.*\sready\s+0$/m);
      expect(plain.stdout).not.toContain('warns');
    } finally {
      await stopProcess(worker);
    }
  },
  SPAWNING_TEST_MS,
);
