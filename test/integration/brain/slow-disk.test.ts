import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { z } from 'zod';
import { startBrain } from '../../../src/brain/daemon/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { defineTool, serveTools } from '../../../src/legion/index.js';
import { startNats } from '../../helpers/nats.js';
import { firstToken } from '../../helpers/tokens.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * A disk whose fsync takes a second (an SD card under write load): the audit writer thread
 * blocks that long in every commit. A governed call waits for its two durable rows, as the
 * design requires; routes that write nothing keep answering meanwhile, because the commit
 * runs off the brain's event loop (issue 13).
 */

const echo = defineTool({
  name: 'echo',
  version: '1.0.0',
  description: 'Test tool: returns its text.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  hitl: 'autonomous',
  input: z.strictObject({ text: z.string().max(100) }),
  output: z.object({ text: z.string() }),
  handler: (input) => ({ text: input.text }),
});

test('with a 1 s fsync, /healthz, /readyz and /v1/tools answer while a call waits for its audit rows', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-slow-disk-'));
  await using nats = await startNats();
  try {
    await writeFile(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - echo\n');
    const dataDir = join(dir, 'var');
    const config = await loadConfig({
      env: {
        CAESAR_BUS__URL: nats.url,
        CAESAR_DATA_DIR: dataDir,
        CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
        // the brain's own intent rules: in-process, nothing copies them to the data dir
        CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
        CAESAR_API__PORT: '0',
        CAESAR_LOG__LEVEL: 'silent',
      },
      cwd: dir,
    });
    await using brain = await startBrain(config, {
      sweepIntervalMs: 60_000,
      auditCommitDelayMs: 1_000,
    });
    await using _worker = await serveTools([echo], { nc: await nats.connect(), host: 'a' });
    const token = await firstToken(join(dataDir, 'api-tokens.yaml'));
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await waitFor(() => brain.registry.tool('echo'), 'the brain to discover echo');

    let settled = false;
    const call = fetch(`${brain.url}/v1/tools/echo/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input: { text: 'hi' } }),
    }).finally(() => (settled = true));

    // tool.called alone takes a second to be durable: every answer below comes inside it
    const answered: string[] = [];
    for (const path of ['/healthz', '/readyz', '/v1/tools', '/healthz']) {
      const res = await fetch(`${brain.url}${path}`, { headers });
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
      if (!settled) answered.push(path);
    }
    expect(answered).toEqual(['/healthz', '/readyz', '/v1/tools', '/healthz']);

    const res = await call;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'ok', result: { text: 'hi' } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
