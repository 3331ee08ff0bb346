/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies read as JSON, checked by the assertions. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningBrain } from '../../../src/brain/daemon/brain.js';
import { startBrain } from '../../../src/brain/daemon/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { defineTool, serveTools, type ToolWorker } from '../../../src/legion/index.js';
import { createEchoTool } from '../../fixtures/tools.js';
import { calls, reply, startFakeOpenAi, type FakeLlm } from '../../helpers/fake-llm.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { firstToken, writeTokensFile } from '../../helpers/tokens.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * Issue 31, scope 5 (ADR 0091), end to end: a real worker on a real nats-server declares its
 * host's capacity; a tool whose spec asks for more vCPUs than any host here has gets a
 * preflight warning naming both values; a real brain shows both in `GET /v1/tools`, holds an
 * invoke of it for confirmation with the warning on it, and runs it once confirmed; and a
 * model's `check_preconditions` answers from the same preflight, refusing a tool it was not
 * offered exactly as an unknown tool is refused.
 */

const POLICY = `version: 1
allowed_tools:
  - big_render
  - tool: echo
    id: kids-echo
    principals: [kids_tablet]
denied_tools:
  - tool: big_render
    id: kids-no-render
    groups: [kids]
`;
const KIDS = 'kids-0123456789abcdefghijklmnopqrstuvw';
const KEY = 'sk-test-openai-0123456789';
const WARNING = /^min_vcpus: the tool asks for 1024 vCPUs; this host has \d+$/;

/** A tool no test host can fit: it asks for 1024 vCPUs. */
const bigRender = defineTool({
  name: 'big_render',
  version: '1.0.0',
  description: 'Test tool: renders on a host with many cores.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'high', memory_mb: 16, network: false, min_vcpus: 1024 },
  input: z.strictObject({ scene: z.string().max(100) }),
  output: z.object({ rendered: z.string() }),
  timeoutMs: 5000,
  handler: (input) => Promise.resolve({ rendered: input.scene }),
});

let nats: TestNats;
let worker: ToolWorker;
let dir: string;
let model: FakeLlm;
let brain: RunningBrain;
let headers: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'caesar-preconditions-'));
  await writeFile(join(dir, 'policy.yaml'), POLICY);
  nats = await startNats();
  // echo is served, but the policy never grants it: the model is not offered it
  worker = await serveTools([bigRender, createEchoTool()], {
    nc: await nats.connect(),
    host: 'test',
  });
  model = await startFakeOpenAi({ key: KEY });
  const dataDir = join(dir, 'var');
  // the operator's token as the brain would make it, and the kids' tablet (ADR 0096)
  await writeTokensFile(join(dataDir, 'api-tokens.yaml'), [
    { name: 'operator', token: `op-${KIDS}` },
    { name: 'kids-tablet', token: KIDS, principal: 'kids_tablet', groups: ['kids'] },
  ]);
  const config = await loadConfig({
    env: {
      CAESAR_BUS__URL: nats.url,
      CAESAR_DATA_DIR: dataDir,
      CAESAR_POLICY__FILE: join(dir, 'policy.yaml'),
      CAESAR_BRAIN__INTENTS_FILE: SHIPPED_INTENTS_FILE,
      CAESAR_API__PORT: '0',
      CAESAR_LOG__LEVEL: 'silent',
      CAESAR_LLM__PROVIDER: 'openai',
      CAESAR_LLM__MODEL: 'gpt-test',
      CAESAR_LLM__OPENAI__BASE_URL: `${model.url}/v1`,
      CAESAR_LLM__OPENAI__API_KEY: KEY,
    },
    cwd: dir,
  });
  brain = await startBrain(config, { sweepIntervalMs: 500 });
  const token = await firstToken(join(dataDir, 'api-tokens.yaml'));
  headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await waitFor(
    async () => (await tools()).some((t) => t.name === 'big_render'),
    'big_render to be discovered',
    15_000,
    50,
  );
}, 60_000);

afterAll(async () => {
  await brain?.close();
  await model?.close();
  await worker?.stop();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface ListedTool {
  name: string;
  instances: { host: string; capacity?: { vcpus: number; memory_gb: number; gpus: unknown[] } }[];
  preflight: { ok: boolean | null; state: string; detail: string[] };
}

async function tools(): Promise<ListedTool[]> {
  const res = await fetch(`${brain.url}/v1/tools`, { headers });
  return (await res.json()) as ListedTool[];
}

async function post(path: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${brain.url}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

async function rows(type: string): Promise<{ outcome: string; payload: any }[]> {
  const res = await fetch(`${brain.url}/v1/audit?type=${type}&order=oldest`, { headers });
  return (await res.json()) as { outcome: string; payload: any }[];
}

describe('a preflight that warns asks the operator', () => {
  test('GET /v1/tools shows the host capacity and the warning; an invoke waits, confirming runs it', async () => {
    const listed = (await tools()).find((t) => t.name === 'big_render')!;
    expect(listed.instances[0]?.capacity).toEqual({
      vcpus: expect.any(Number) as number,
      memory_gb: expect.any(Number) as number,
      gpus: expect.any(Array) as unknown[],
    });
    expect(listed.preflight).toMatchObject({ ok: true, state: 'ready' });
    expect(listed.preflight.detail).toEqual([expect.stringMatching(WARNING)]);

    const held = await post('/v1/tools/big_render/invoke', { input: { scene: 'teapot' } });
    expect(held.outcome).toBe('confirmation_required');
    expect(held.reason).toMatch(/^the preflight of big_render warns .*; the policy allowed it: /);
    expect(held.confirmation.preflight_warnings).toEqual([expect.stringMatching(WARNING)]);
    const pending = (await (await fetch(`${brain.url}/v1/confirmations`, { headers })).json()) as {
      preflight_warnings: string[];
    }[];
    expect(pending.map((c) => c.preflight_warnings)).toEqual([[expect.stringMatching(WARNING)]]);
    const [requested] = await rows('tool.confirmation_requested');
    expect(requested?.payload.preflight_warnings).toEqual([expect.stringMatching(WARNING)]);
    expect(await rows('tool.called')).toEqual([]);

    const ran = await post(`/v1/confirmations/${held.confirmation.id as string}`, {
      approve: true,
    });
    expect(ran).toMatchObject({
      outcome: 'ok',
      decision: 'approved',
      result: { rendered: 'teapot' },
    });
  });
});

describe('check_preconditions, the planner action', () => {
  test('answers for an offered tool from its preflight; an unoffered tool is refused as unknown', async () => {
    model.script(
      calls([
        { id: 'c1', name: 'check_preconditions', arguments: '{"tool":"big_render"}' },
        { id: 'c2', name: 'check_preconditions', arguments: '{"tool":"echo"}' },
      ]),
      reply('It needs more cores than this host has.'),
    );
    const res = await post('/v1/chat', { message: 'can you render the teapot here?' });
    // offered under the `tool` tag beside the tools, its argument limited to them
    const offered = (
      model.bodies.at(-2)!.tools as { function: { name: string; parameters: any } }[]
    ).map((t) => t.function);
    expect(offered.map((t) => t.name)).toEqual(['big_render', 'check_preconditions']);
    expect(offered[1]!.parameters.properties.tool.enum).toEqual(['big_render']);

    const [checked, refused] = res.tool_calls as Record<string, any>[];
    expect(checked).toMatchObject({ tool: 'check_preconditions', outcome: 'ok' });
    expect(checked!.result).toEqual({
      tool: 'big_render',
      execution_locality: 'local',
      resource_requirements: { cpu: 'high', memory_mb: 16, network: false, min_vcpus: 1024 },
      ok: true,
      warnings: [expect.stringMatching(WARNING)],
    });
    expect(checked!.label).toEqual({ trust: 'trusted', private: false });
    expect(refused).toMatchObject({
      tool: 'check_preconditions',
      outcome: 'failed',
      error: { code: 'unknown_tool' },
    });
    expect(refused!.error.message).toContain('no tool named "echo" is offered to you');
    // nothing was dispatched: no tool.called row, and echo was never judged
    expect(await rows('tool.called')).toHaveLength(1);
    expect((await rows('tool.denied')).length).toBe(0);
  });
});

describe('check_preconditions for a principal the policy denies the tool', () => {
  test('answers as for a tool it was never offered: nothing about the tool is said', async () => {
    model.script(
      calls([{ id: 'k1', name: 'check_preconditions', arguments: '{"tool":"big_render"}' }]),
      reply('I cannot render here.'),
    );
    const res = await fetch(`${brain.url}/v1/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KIDS}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'can you render the teapot here?' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tool_calls: Record<string, any>[] };
    // the kids' principal is offered echo, not big_render, and the action knows only echo
    const offered = (
      model.bodies.at(-2)!.tools as { function: { name: string; parameters: any } }[]
    ).map((t) => t.function);
    expect(offered.map((t) => t.name)).toEqual(['echo', 'check_preconditions']);
    expect(offered[1]!.parameters.properties.tool.enum).toEqual(['echo']);
    expect(body.tool_calls[0]).toMatchObject({
      tool: 'check_preconditions',
      outcome: 'failed',
      error: { code: 'unknown_tool' },
    });
    expect(body.tool_calls[0]!.error.message).toContain('no tool named "big_render" is offered');
    expect(JSON.stringify(body.tool_calls[0])).not.toContain('min_vcpus');
  });
});
