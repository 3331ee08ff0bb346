import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstToken } from '../../../helpers/tokens.js';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startBrain } from '../../../../src/brain/daemon/index.js';
import { startRegistry, type Registry } from '../../../../src/brain/registry/index.js';
import { loadConfig } from '../../../../src/config/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../../src/config/shipped.js';
import { defineTool, serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';
import { nextEvent } from './events.js';

/** A tool whose versions differ only in the settings under test. */
function guarded(o: {
  version: string;
  hitl: 'autonomous' | 'confirm';
  destructive?: boolean;
  loose?: boolean;
  /** @default false */
  readOnly?: boolean;
  /** @default false */
  openWorld?: boolean;
  /** @default the SDK's (trusted: closed-world, no network) */
  outputTrust?: 'trusted' | 'untrusted';
  /** @default false */
  readsPrivate?: boolean;
}) {
  return defineTool({
    name: 'guarded',
    version: o.version,
    description: 'Test tool: turns a named switch off.',
    annotations: {
      readOnly: o.readOnly ?? false,
      destructive: o.destructive ?? false,
      idempotent: true,
      openWorld: o.openWorld ?? false,
    },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    hitl: o.hitl,
    ...(o.outputTrust === undefined ? {} : { outputTrust: o.outputTrust }),
    readsPrivate: o.readsPrivate ?? false,
    input: o.loose
      ? z.looseObject({ entity: z.string() })
      : z.strictObject({ entity: z.enum(['switch.fan']) }),
    output: z.object({ off: z.string() }),
    handler: (input) => ({ off: input.entity }),
  });
}

describe('a confirmed spec that would lower safety', () => {
  let nats: TestNats;
  let registry: Registry;
  const workers: ToolWorker[] = [];
  const serve = async (tool: ReturnType<typeof guarded>, host: string) => {
    const w = await serveTools([tool], { nc: await nats.connect(), host });
    workers.push(w);
    return w;
  };

  beforeEach(async () => {
    nats = await startNats();
    registry = await startRegistry({
      nc: await nats.connect(),
      sweepIntervalMs: 60_000,
      sweepWindowMs: 300,
    });
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await registry?.close();
    await nats?.stop();
  });

  test('a new version with hitl autonomous and a looser schema keeps confirm and the old schema', async () => {
    const v1 = guarded({ version: '1.0.0', hitl: 'confirm' });
    const v2 = guarded({ version: '2.0.0', hitl: 'autonomous', loose: true });
    const first = nextEvent(registry, 'instance_added');
    const a = await serve(v1, 'a');
    await first;
    const changed = nextEvent(registry, 'spec_changed');
    await serve(v2, 'b');

    expect(await changed).toMatchObject({
      tool: 'guarded',
      host: 'b',
      kind: 'lowers_safety',
      from_version: '1.0.0',
      to_version: '2.0.0',
      from_sha256: v1.specSha256,
      to_sha256: v2.specSha256,
      lowered: ['hitl', 'input_schema'],
      lowered_safety: true,
      adopted: false,
    });
    const tool = registry.tool('guarded')!;
    expect(tool.spec.version).toBe('2.0.0');
    expect(tool.spec.hitl).toBe('confirm');
    expect(tool.spec.input_schema).toEqual(v1.spec.input_schema);
    expect(tool.held).toEqual(['hitl', 'input_schema']);
    expect(tool.specSha256).not.toBe(v2.specSha256);
    // each instance still shows what it declared
    expect(tool.instances.map((i) => [i.host, i.spec.hitl])).toEqual([
      ['a', 'confirm'],
      ['b', 'autonomous'],
    ]);

    // the stricter settings outlive the instance that declared them
    const gone = nextEvent(registry, 'instance_removed');
    await a.stop();
    await gone;
    expect(registry.tool('guarded')?.spec.hitl).toBe('confirm');
    expect(registry.tool('guarded')?.held).toEqual(['hitl', 'input_schema']);
  });

  test('a new version claiming read-only, closed-world, trusted, non-private output keeps the stricter settings', async () => {
    // what the policy's flow rules read (ADR 0067): a forger who flips these escapes the gates
    const strict = { openWorld: true, outputTrust: 'untrusted', readsPrivate: true } as const;
    const v1 = guarded({ version: '1.0.0', hitl: 'autonomous', ...strict });
    const v2 = guarded({ version: '1.0.1', hitl: 'autonomous', readOnly: true });
    expect(v2.spec).toMatchObject({ output_trust: 'trusted', reads_private: false });
    const first = nextEvent(registry, 'instance_added');
    await serve(v1, 'a');
    await first;
    const changed = nextEvent(registry, 'spec_changed');
    await serve(v2, 'b');

    expect(await changed).toMatchObject({
      tool: 'guarded',
      host: 'b',
      kind: 'lowers_safety',
      from_version: '1.0.0',
      to_version: '1.0.1',
      lowered: ['annotations.readOnly', 'annotations.openWorld', 'output_trust', 'reads_private'],
      lowered_safety: true,
      adopted: false,
    });
    const tool = registry.tool('guarded')!;
    expect(tool.spec).toMatchObject({
      version: '1.0.1',
      annotations: { readOnly: false, openWorld: true },
      output_trust: 'untrusted',
      reads_private: true,
    });
    expect(tool.held).toEqual([
      'annotations.readOnly',
      'annotations.openWorld',
      'output_trust',
      'reads_private',
    ]);
  });

  test('a stricter new version is adopted as declared, and raises the floor', async () => {
    const v1 = guarded({ version: '1.0.0', hitl: 'autonomous' });
    const v2 = guarded({ version: '1.1.0', hitl: 'confirm', destructive: true });
    const reports: unknown[] = [];
    registry.on('spec_changed', (e) => reports.push(e));
    const first = nextEvent(registry, 'instance_added');
    const a = await serve(v1, 'a');
    await first;
    const second = nextEvent(registry, 'instance_added');
    await serve(v2, 'b');
    await second;
    expect(registry.tool('guarded')).toMatchObject({ specSha256: v2.specSha256, held: [] });

    // the older, laxer version is still running: the tool keeps v2's settings even if v1 wins
    const gone = nextEvent(registry, 'instance_removed');
    await workers[1]!.stop();
    await gone;
    const tool = registry.tool('guarded')!;
    expect(tool.spec.version).toBe('1.0.0');
    expect(tool.spec.hitl).toBe('confirm');
    expect(tool.spec.annotations.destructive).toBe(true);
    expect(tool.held).toEqual(['hitl', 'annotations.destructive']);
    expect(reports).toEqual([]);
    await a.stop();
  });
});

test('the brain audits registry.spec_changed and still asks for confirmation', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'caesar-spec-change-'));
  await using nats = await startNats();
  const workers: ToolWorker[] = [];
  try {
    await writeFile(join(dir, 'policy.yaml'), 'version: 1\nallowed_tools:\n  - guarded\n');
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
    await using brain = await startBrain(config, { sweepIntervalMs: 60_000 });
    const token = await firstToken(join(dataDir, 'api-tokens.yaml'));
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    };
    const v1 = guarded({
      version: '1.0.0',
      hitl: 'confirm',
      outputTrust: 'untrusted',
      readsPrivate: true,
    });
    workers.push(await serveTools([v1], { nc: await nats.connect(), host: 'a' }));
    await waitFor(() => brain.registry.tool('guarded'), 'the brain to list guarded 1.0.0');
    const v2 = guarded({ version: '2.0.0', hitl: 'autonomous', loose: true });
    workers.push(await serveTools([v2], { nc: await nats.connect(), host: 'b' }));

    const rows = await waitFor(async () => {
      const res = await fetch(`${brain.url}/v1/audit?type=registry.spec_changed`, { headers });
      const body = (await res.json()) as { outcome: string; tool: string; payload: unknown }[];
      return body.length > 0 ? body : undefined;
    }, 'a registry.spec_changed audit row');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      outcome: 'rejected',
      tool: 'guarded',
      payload: {
        from_version: '1.0.0',
        to_version: '2.0.0',
        lowered_safety: true,
        lowered: ['hitl', 'input_schema', 'output_trust', 'reads_private'],
        changes: expect.arrayContaining([
          'hitl',
          'input_schema',
          'output_trust',
          'reads_private',
          'version',
        ]),
      },
    });

    // what the brain shows and enforces is the held spec, not the one the new worker declared
    const listed = await fetch(`${brain.url}/v1/tools`, { headers });
    const tools = (await listed.json()) as { name: string; spec: Record<string, unknown> }[];
    expect(tools.find((t) => t.name === 'guarded')?.spec).toMatchObject({
      version: '2.0.0',
      hitl: 'confirm',
      output_trust: 'untrusted',
      reads_private: true,
    });

    // the laxer spec would run this at once, and its schema would take the extra key
    const res = await fetch(`${brain.url}/v1/tools/guarded/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input: { entity: 'switch.fan' } }),
    });
    expect(((await res.json()) as { outcome: string }).outcome).toBe('confirmation_required');
    const loose = await fetch(`${brain.url}/v1/tools/guarded/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input: { entity: 'switch.fridge' } }),
    });
    expect(await loose.json()).toMatchObject({
      outcome: 'failed',
      error: { code: 'invalid_input' },
    });
  } finally {
    await Promise.allSettled(workers.map((w) => w.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}, 30_000);
