import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  startBrainProcess,
  stopProcess,
  type BrainProcess,
} from '../../../helpers/brain.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';

// Issue 31, scope 2 (ADR 0090): a catalog-only stub is listed as planned by GET /v1/tools and
// "what can you do", and a call to it is refused `tool_planned` before the policy (which
// grants it here) is asked.

const CATALOG = `version: 1
tools:
  - name: hpc_solver
    purpose: Run FDTD jobs on the cluster
    location: planned
    capability: hpc_solver
    module: ""
    version: ""
    tags: [tool, hpc]
    spec_sha256: ""
`;

let dir: string;
let nats: TestNats;
let brain: BrainProcess;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-planned-'));
  await writeFile(join(dir, 'catalog.yaml'), CATALOG, { mode: 0o600 });
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, 'version: 1\nallowed_tools:\n  - tool: hpc_solver\n');
  nats = await startNats();
  brain = await startBrainProcess({ natsUrl: nats.url, dataDir: dir, policyFile });
}, 60_000);
afterAll(async () => {
  await stopProcess(brain?.proc);
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('a planned tool', () => {
  test('GET /v1/tools lists it as planned, with the tag filter', async () => {
    const all = await callBrain(brain, 'GET', '/v1/tools');
    expect(all.body).toEqual([
      expect.objectContaining({
        name: 'hpc_solver',
        state: 'planned',
        planned: { purpose: 'Run FDTD jobs on the cluster', tags: ['tool', 'hpc'] },
        spec: null,
        instances: [],
      }),
    ]);
    const other = await callBrain(brain, 'GET', '/v1/tools?exclude_tags=hpc');
    expect(other.body).toEqual([]);
  });

  test('a call is refused tool_planned before the policy, which allows it', async () => {
    const r = await callBrain(brain, 'POST', '/v1/tools/hpc_solver/invoke', { input: {} });
    expect(r.body).toMatchObject({ outcome: 'failed', error: { code: 'tool_planned' } });
    expect(r.body.error.message).toContain('hpc_solver is planned, not served');
    expect(r.body.rule).toBeUndefined();
  });

  test('"what can you do" names it as planned', async () => {
    const r = await callBrain(brain, 'POST', '/v1/chat', { message: 'what can you do' });
    expect(r.body.reply).toContain('Planned, not served yet');
    expect(r.body.reply).toContain('- hpc_solver: Run FDTD jobs on the cluster');
    const caps = await callBrain(brain, 'GET', '/v1/capabilities');
    expect(caps.body.planned).toEqual([
      { tool: 'hpc_solver', purpose: 'Run FDTD jobs on the cluster' },
    ]);
  });
});
