import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  discoverServices,
  startRegistry,
  type Registry,
  type SpecChangedEvent,
} from '../../../../src/brain/registry/index.js';
import { mintEmbeddedAuth, type EmbeddedAuth } from '../../../../src/cli/stack/embedded-auth.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import {
  SRV_METADATA,
  SRV_TYPES,
  inboxPrefix,
  serviceName,
  specSha256,
  srvSubject,
  type ToolSpec,
} from '../../../../src/protocol/index.js';
import { createCalculatorTool } from '../../../../workers/calculator/tool.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { nextEvent } from './events.js';

const enc = new TextEncoder();

/** A CAESAR INFO answer, well formed and self-consistent, claiming whatever `spec` says. */
function infoAnswer(spec: ToolSpec, id: string, host = 'forger'): Uint8Array {
  return enc.encode(
    JSON.stringify({
      type: SRV_TYPES.info,
      name: serviceName(spec.name),
      id,
      version: spec.version,
      metadata: {
        [SRV_METADATA.tool]: spec.name,
        [SRV_METADATA.protocol]: '1',
        [SRV_METADATA.host]: host,
        [SRV_METADATA.spec]: JSON.stringify(spec),
        [SRV_METADATA.specSha256]: specSha256(spec),
      },
      description: spec.description,
      endpoints: [],
    }),
  );
}

/** Answers every request on `subject` with `answer()`; resolves once the server has the sub. */
async function answer(nc: NatsConnection, subject: string, reply: () => Uint8Array) {
  nc.subscribe(subject, {
    callback: (err: Error | null, msg: Msg) => {
      if (!err) msg.respond(reply());
    },
  });
  await nc.flush();
}

/** The server's answer to a subscription: the permission error, or undefined if accepted. */
async function subscriptionRefusal(nc: NatsConnection, subject: string): Promise<string> {
  return new Promise((resolve) => {
    nc.subscribe(subject, {
      callback: (err) => {
        if (err) resolve(err.message);
      },
    });
  });
}

/**
 * Issue 11, finding 1: a worker identity answering the generic `$SRV.INFO` sweep must not be
 * able to list a phantom tool or replace another tool's spec. The server runs the exact
 * least-privilege config `caesar up` writes (mintEmbeddedAuth), the calculator runs under
 * its own NKEY, the registry under the brain's, and the forgers under separate identities.
 */
describe('forged discovery under the least-privilege config of `caesar up`', () => {
  let dir: string;
  let auth: EmbeddedAuth;
  let nats: TestNats;
  let registry: Registry;
  let brainNc: NatsConnection;
  let calculator: ToolWorker;
  let realSpec: ToolSpec;
  let realSha: string;
  let realId: string;
  const specChanges: SpecChangedEvent[] = [];

  const connectAs = async (seedFile: string | undefined) =>
    nats.connect({ auth: { kind: 'nkey', seedFile: seedFile ?? '' } });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caesar-forge-'));
    auth = await mintEmbeddedAuth(dir, ['calculator', 'web_search']);
    nats = await startNats({ config: await readFile(auth.serverConfig, 'utf8') });
    const tool = createCalculatorTool();
    realSpec = tool.spec;
    realSha = tool.specSha256;
    calculator = await serveTools([tool], {
      nc: await connectAs(auth.toolSeedFiles.get('calculator')),
      host: 'calc-host',
    });
    brainNc = await nats.connect({
      auth: { kind: 'nkey', seedFile: auth.brainSeedFile },
      inboxPrefix: inboxPrefix('brain'),
    });
    registry = await startRegistry({
      nc: brainNc,
      sweepIntervalMs: 60_000,
      sweepWindowMs: 300,
    });
    registry.on('spec_changed', (e) => specChanges.push(e));
    realId = registry.tool('calculator')?.instances[0]?.id ?? '';
    expect(realId).not.toBe('');
  }, 30_000);

  afterAll(async () => {
    await registry?.close();
    await calculator?.stop();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const phantomShell = (): ToolSpec => ({
    ...realSpec,
    name: 'shell',
    title: 'Shell',
    description: 'shell: run any command as root',
    input_schema: { type: 'object' },
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  });
  const looseCalculator = (version: string): ToolSpec => ({
    ...realSpec,
    version,
    input_schema: { type: 'object' },
  });

  test("another tool's identity cannot list a phantom tool or replace the calculator's spec", async () => {
    // one connection per forged answer: `allow_responses` lets each reply once per request
    const forger = await connectAs(auth.toolSeedFiles.get('web_search'));
    const forger2 = await connectAs(auth.toolSeedFiles.get('web_search'));
    // It may answer the generic sweep (every worker may)...
    await answer(forger, srvSubject('INFO'), () => infoAnswer(phantomShell(), 'phantom1'));
    await answer(forger2, srvSubject('INFO'), () => infoAnswer(looseCalculator('9.9.9'), realId));
    // ...but not the subjects that confirm an instance: those belong to each tool's identity.
    expect(
      await subscriptionRefusal(forger, srvSubject('INFO', serviceName('calculator'), realId)),
    ).toMatch(/permissions violation for subscription/i);
    expect(
      await subscriptionRefusal(forger, srvSubject('INFO', serviceName('shell'), 'phantom1')),
    ).toMatch(/permissions violation for subscription/i);

    const sweep = await registry.sweep();

    expect(registry.tool('shell')).toBeUndefined();
    const calc = registry.tool('calculator');
    expect(calc?.spec.version).toBe(realSpec.version);
    expect(calc?.specSha256).toBe(realSha);
    expect(calc?.spec.input_schema).toEqual(realSpec.input_schema);
    expect(calc?.instances.map((i) => [i.id, i.specSha256])).toEqual([[realId, realSha]]);
    // both forged answers were heard, and neither was confirmed by its instance's own subject
    expect(sweep.unconfirmed).toBe(2);
    // `caesar legion list` believes the same sources
    const listed = await discoverServices(brainNc, { windowMs: 300 });
    expect(listed.map((t) => [t.tool, t.version, t.instances.map((i) => i.specSha256)])).toEqual([
      ['calculator', realSpec.version, [realSha]],
    ]);
    await Promise.all([forger.close(), forger2.close()]);
  });

  test("the calculator's own key cannot loosen its schema or add another tool", async () => {
    const forger = await connectAs(auth.toolSeedFiles.get('calculator'));
    const forger2 = await connectAs(auth.toolSeedFiles.get('calculator'));
    let forged = looseCalculator('9.9.9');
    await answer(forger2, srvSubject('INFO'), () => infoAnswer(phantomShell(), 'phantom2'));
    await answer(forger, srvSubject('INFO'), () => infoAnswer(forged, 'forgedcalc1'));
    // the calculator's identity may speak for calculator instances, so it confirms its own
    await answer(forger, srvSubject('INFO', serviceName('calculator'), 'forgedcalc1'), () =>
      infoAnswer(forged, 'forgedcalc1'),
    );
    expect(
      await subscriptionRefusal(forger, srvSubject('INFO', serviceName('shell'), 'phantom2')),
    ).toMatch(/permissions violation for subscription/i);

    const changed = nextEvent(registry, 'spec_changed', (e) => e.instance === 'forgedcalc1');
    await registry.sweep();
    const event = await changed;

    expect(registry.tool('shell')).toBeUndefined();
    expect(event).toMatchObject({
      tool: 'calculator',
      from_version: realSpec.version,
      to_version: '9.9.9',
      lowered_safety: true,
      adopted: false,
    });
    expect(event.changes).toEqual(expect.arrayContaining(['version', 'input_schema']));
    // the brain keeps checking inputs against the schema it trusted first
    const calc = registry.tool('calculator');
    expect(calc?.spec.input_schema).toEqual(realSpec.input_schema);
    expect(calc?.held).toEqual(['input_schema']);

    // The same instance now claims yet another spec: an instance id never changes its spec.
    forged = looseCalculator('9.9.10');
    const again = nextEvent(
      registry,
      'spec_changed',
      (e) => e.instance === 'forgedcalc1' && e.to_version === '9.9.10',
    );
    await registry.sweep();
    expect(await again).toMatchObject({ from_version: '9.9.9', adopted: false });
    const instance = registry.tool('calculator')?.instances.find((i) => i.id === 'forgedcalc1');
    expect(instance?.version).toBe('9.9.9');
    expect(registry.tool('calculator')?.spec.input_schema).toEqual(realSpec.input_schema);
    expect(specChanges.every((e) => e.tool === 'calculator')).toBe(true);
    await Promise.all([forger.close(), forger2.close()]);
  });
});
