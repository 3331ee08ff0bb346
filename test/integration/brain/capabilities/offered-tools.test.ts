import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { PlannerTool } from '../../../../src/brain/agent/index.js';
import {
  OfferedTools,
  type OfferedToolsOptions,
} from '../../../../src/brain/capabilities/offered-tools.js';
import { PreflightCache } from '../../../../src/brain/preflight/index.js';
import { CHECK_PRECONDITIONS } from '../../../../src/brain/capabilities/check-preconditions.js';
import { startRegistry, type Registry } from '../../../../src/brain/registry/index.js';
import {
  defineTool,
  notConfigured,
  serveTools,
  type ToolDefinition,
  type ToolDefinitionInput,
  type ToolWorker,
} from '../../../../src/legion/index.js';
import { openPolicyStore, type PolicyStore } from '../../../../src/policy/index.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';

const input = z.strictObject({ text: z.string().max(100).optional() });

/** A test tool; `preflight` decides its state. */
function tool(
  name: string,
  extra: Partial<ToolDefinitionInput<z.ZodType, z.ZodType>> = {},
): ToolDefinition {
  return defineTool<z.ZodType, z.ZodType>({
    name,
    version: '1.0.0',
    description: `Test tool ${name}.`,
    input,
    output: z.object({ ok: z.boolean() }),
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    handler: () => ({ ok: true }),
    ...extra,
  });
}

/** What the tests flip and count, read by the tools' preflights. */
const state = { lampReady: true, echoPreflights: 0 };

const TOOLS = [
  tool('echo', {
    tags: ['util'],
    preflight: () => {
      state.echoPreflights++;
      return { ok: true };
    },
  }),
  tool('lamp', {
    tags: ['home'],
    annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
    preflight: () =>
      state.lampReady
        ? { ok: true, warnings: ['bulb firmware is old'] }
        : { ok: false, checks: [{ name: 'bulb', ok: false, detail: 'bulb unreachable' }] },
  }),
  tool('door', {
    tags: ['home'],
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  }),
  tool('note', { tags: ['util'] }),
  tool('secret', { tags: ['util'] }),
  tool('vault', { tags: ['util'] }),
  tool('weather', { tags: ['web'], preflight: () => notConfigured('set tools.weather.url') }),
  tool('call_service', {
    tags: ['home', 'home_assistant'],
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    input: z.strictObject({ domain: z.string(), service: z.string() }),
  }),
];

const POLICY = `version: 1
allowed_services:
  - service: light.turn_on
    target:
      entity_id: [light.kitchen]
allowed_tools:
  - echo
  - lamp
  - tool: door
    confirm: true
  - tool: note
    input:
      topic: { enum: [shopping], required: true }
  - secret
  - weather
denied_tools:
  - secret
`;

/** The workers' tools offered; the brain's own `check_preconditions` has its own test. */
const names = (tools: readonly PlannerTool[]) =>
  tools.map((t) => t.name).filter((n) => n !== CHECK_PRECONDITIONS);

describe('offered tools (real NATS, workers, registry, policy file, preflights)', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  let dir: string;
  let policyFile: string;
  let policy: PolicyStore;
  let registry: Registry;
  const workers: ToolWorker[] = [];

  beforeEach(async () => {
    state.lampReady = true;
    state.echoPreflights = 0;
    dir = mkdtempSync(join(tmpdir(), 'caesar-offered-'));
    policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, POLICY);
    nats = await startNats();
    nc = await nats.connect();
    policy = await openPolicyStore({ path: policyFile, reloadSignal: null, debounceMs: 20 });
    registry = await startRegistry({ nc });
    workers.push(await serveTools(TOOLS, { nc: await nats.connect(), host: 'test' }));
    await waitFor(
      () => registry.tools().length === TOOLS.length,
      'the registry to learn the tools',
    );
  });

  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await registry?.close();
    policy?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function offered(options: Partial<OfferedToolsOptions> = {}): OfferedTools {
    return new OfferedTools({
      registry,
      policy,
      preflight: new PreflightCache(nc, { timeoutMs: 1000 }),
      ...options,
    });
  }

  test('offers discovered, allowed and ready tools, each with its card and input schema', async () => {
    const tools = await offered().tools();
    // door: confirm; note: allowed for some inputs; call_service: allowed_services rules.
    // secret: denied; vault: no rule; weather: not configured.
    expect(names(tools)).toEqual(['call_service', 'door', 'echo', 'lamp', 'note']);
    // then the brain's own action, its argument limited to the tools offered (ADR 0091)
    const last = tools.at(-1)!;
    expect(last.name).toBe(CHECK_PRECONDITIONS);
    expect(last.inputSchema).toMatchObject({
      properties: { tool: { enum: ['call_service', 'door', 'echo', 'lamp', 'note'] } },
    });
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('echo')?.inputSchema).toEqual(registry.tool('echo')?.spec.input_schema);
    expect(byName.get('echo')?.description).toMatch(/^Test tool echo\.\n\nFacts:\n/);
    expect(byName.get('door')?.description).toContain(
      '- Confirmation: a human approves each call first (the policy asks for it)',
    );
    expect(byName.get('note')?.description).toContain("the policy judges each call's input");
    expect(byName.get('call_service')?.description).toContain(
      "the policy judges each call's input",
    );
    expect(byName.get('lamp')?.description).toContain('- Status: degraded: bulb firmware is old.');
    expect(byName.get('echo')?.description).toContain('- Status: ready.');
  });

  test('is cached: the same list while nothing changes, and one preflight per TTL', async () => {
    const offer = offered();
    const first = await offer.tools();
    for (let i = 0; i < 20; i++) expect(await offer.tools()).toBe(first);
    expect(state.echoPreflights).toBe(1);
  });

  test('a policy edit changes the offered set', async () => {
    const offer = offered();
    expect(names(await offer.tools())).toContain('lamp');
    writeFileSync(
      policyFile,
      POLICY.replace('  - lamp\n', '').replace('denied_tools:\n', 'denied_tools:\n  - echo\n'),
    );
    await waitFor(
      async () => !names(await offer.tools()).includes('lamp'),
      'lamp to leave the offered set',
    );
    expect(names(await offer.tools())).toEqual(['call_service', 'door', 'note']);

    writeFileSync(policyFile, 'version: 1\ndenied_tools:\n  - call_service\n');
    await waitFor(
      async () => (await offer.tools()).length === 0,
      'the kill switch and an empty allow list to offer nothing',
    );
  });

  test('a preflight state change rebuilds the list', async () => {
    const offer = offered({ preflight: new PreflightCache(nc, { ttlMs: 50, timeoutMs: 1000 }) });
    expect(names(await offer.tools())).toContain('lamp');
    state.lampReady = false;
    await waitFor(
      async () => !names(await offer.tools()).includes('lamp'),
      'a not-ready lamp to leave the offered set',
    );
    state.lampReady = true;
    const back = await waitFor(
      async () => (await offer.tools()).find((t) => t.name === 'lamp'),
      'the lamp to come back once ready',
    );
    expect(back.description).toContain('degraded: bulb firmware is old');
  });

  test('a tool whose preflight does not answer is unknown, and not offered', async () => {
    const slow = tool('slow', {
      preflight: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 2000)),
    });
    writeFileSync(policyFile, `${POLICY.replace('  - weather\n', '  - weather\n  - slow\n')}`);
    await policy.reload();
    workers.push(await serveTools([slow], { nc: await nats.connect(), host: 'test' }));
    await waitFor(() => registry.tool('slow'), 'the registry to learn slow');
    const tools = await offered({ preflight: new PreflightCache(nc, { timeoutMs: 200 }) }).tools();
    expect(names(tools)).not.toContain('slow');
    expect(names(tools)).toContain('echo');
  });

  test('the registry: a new spec version changes the card; a stopped worker leaves', async () => {
    const offer = offered();
    const before = await offer.tools();
    const v2 = tool('echo', {
      version: '1.1.0',
      description: 'Test tool echo, second edition.',
      tags: ['util'],
    });
    const worker = await serveTools([v2], { nc: await nats.connect(), host: 'test' });
    await waitFor(() => registry.tool('echo')?.spec.version === '1.1.0', 'echo 1.1.0');
    const after = await offer.tools();
    expect(after).not.toBe(before);
    expect(after.find((t) => t.name === 'echo')?.description).toMatch(/^Test tool echo, second/);

    await worker.stop();
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await waitFor(() => registry.tools().length === 0, 'every tool to leave the registry');
    expect(await offer.tools()).toEqual([]);
  });

  test.each([
    [{ includeTags: ['home'] }, ['call_service', 'door', 'lamp']],
    [{ includeTags: ['tool'] }, ['call_service', 'door', 'echo', 'lamp', 'note']],
    [{ excludeTags: ['home_assistant'] }, ['door', 'echo', 'lamp', 'note']],
    [{ includeTags: ['home'], excludeTags: ['home_assistant'] }, ['door', 'lamp']],
    [{ includeTags: ['web'] }, []],
    // every listed tag on one tool (ADR 0088): `tool` alone is everything, `tool,home` home only
    [{ includeTags: ['tool', 'home'] }, ['call_service', 'door', 'lamp']],
    [{ includeTags: ['home', 'home_assistant'] }, ['call_service']],
    [{ includeTags: ['home', 'util'] }, []],
    [{ includeTags: ['tool'], excludeTags: ['util', 'home_assistant'] }, ['door', 'lamp']],
  ])('tags %j offer %j', async (tags, expected) => {
    expect(names(await offered({ tags }).tools())).toEqual(expected);
  });
});
