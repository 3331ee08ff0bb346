import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startRegistry, type Registry } from '../../../../src/brain/registry/index.js';
import { RegistryClosedError } from '../../../../src/brain/registry/registry.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import {
  REGISTRY_BYE_SUBJECT,
  REGISTRY_HELLO_SUBJECT,
  type Bye,
  type Hello,
} from '../../../../src/protocol/index.js';
import { createEchoTool } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { nextEvent } from './events.js';

const enc = new TextEncoder();

describe('registry announcements (sweeps too rare to explain anything)', () => {
  let nats: TestNats;
  let registry: Registry;
  let sweeps: number;
  const workers: ToolWorker[] = [];

  beforeEach(async () => {
    nats = await startNats();
    registry = await startRegistry({
      nc: await nats.connect(),
      sweepIntervalMs: 60_000,
      sweepWindowMs: 300,
    });
    sweeps = 0;
    registry.on('sweep', () => sweeps++);
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await registry?.close();
    await nats?.stop();
  });

  async function serve(host: string, version = '1.0.0'): Promise<ToolWorker> {
    const w = await serveTools([createEchoTool({ version })], { nc: await nats.connect(), host });
    workers.push(w);
    return w;
  }

  test('learns a new instance within 250 ms of its hello', async () => {
    const watcher = await nats.connect();
    let helloAt = 0;
    watcher.subscribe(REGISTRY_HELLO_SUBJECT, {
      callback: () => {
        helloAt ||= performance.now();
      },
    });
    await watcher.flush();

    const added = nextEvent(registry, 'instance_added');
    const worker = await serve('host-a');
    const event = await added;
    const addedAt = performance.now();

    expect(event.instance.id).toBe(worker.instances[0]!.id);
    expect(event.instance.source).toBe('hello');
    expect(helloAt).toBeGreaterThan(0);
    expect(addedAt - helloAt).toBeLessThan(250);
    expect(sweeps).toBe(0);
    const tool = registry.tool('echo');
    expect(tool?.instances.map((i) => [i.id, i.host, i.version])).toEqual([
      [worker.instances[0]!.id, 'host-a', '1.0.0'],
    ]);
    expect(tool?.spec.name).toBe('echo');
  });

  test('learns a second instance from its hello (and its own INFO), without a sweep', async () => {
    const first = nextEvent(registry, 'instance_added');
    await serve('host-a');
    await first;
    const added = nextEvent(registry, 'instance_added', (e) => e.instance.host === 'host-b');
    const started = performance.now();
    const b = await serve('host-b');
    const event = await added;

    expect(performance.now() - started).toBeLessThan(250);
    expect(event.instance.id).toBe(b.instances[0]!.id);
    expect(registry.tool('echo')?.instances.map((i) => i.host)).toEqual(['host-a', 'host-b']);
    expect(sweeps).toBe(0);
  });

  test('a forged hello repeating a known spec lists nothing: the named instance must confirm', async () => {
    const added = nextEvent(registry, 'instance_added');
    const worker = await serve('host-a');
    const real = (await added).instance;
    const seen: unknown[] = [];
    registry.on('instance_added', (e) => seen.push(e));
    const forged: Hello = {
      v: 1,
      tool: 'echo',
      service: worker.instances[0]!.service,
      instance_id: 'FakeInstance0000000000',
      host: 'nowhere',
      version: real.version,
      spec_sha256: real.specSha256,
    };
    const unconfirmed = nextEvent(registry, 'hello_unconfirmed');
    const nc = await nats.connect();
    nc.publish(REGISTRY_HELLO_SUBJECT, enc.encode(JSON.stringify(forged)));
    expect(await unconfirmed).toMatchObject({ tool: 'echo', instanceId: forged.instance_id });
    expect(seen).toEqual([]);
    expect(registry.tool('echo')?.instances.map((i) => i.id)).toEqual([real.id]);
  });

  test('a bye removes the instance at once and the tool goes with its last instance', async () => {
    const both = Promise.all([
      nextEvent(registry, 'instance_added', (e) => e.instance.host === 'host-a'),
      nextEvent(registry, 'instance_added', (e) => e.instance.host === 'host-b'),
    ]);
    const a = await serve('host-a');
    const b = await serve('host-b');
    await both;

    const firstGone = nextEvent(registry, 'instance_removed');
    await a.stop();
    const stoppedAt = performance.now();
    const first = await firstGone;
    expect(performance.now() - stoppedAt).toBeLessThan(250);
    expect(first).toMatchObject({ reason: 'bye', toolRemoved: false, tool: 'echo' });
    expect(first.instance.id).toBe(a.instances[0]!.id);
    expect(registry.tool('echo')?.instances.map((i) => i.host)).toEqual(['host-b']);

    const lastGone = nextEvent(registry, 'instance_removed');
    await b.stop();
    expect(await lastGone).toMatchObject({ reason: 'bye', toolRemoved: true });
    expect(registry.tool('echo')).toBeUndefined();
    expect(registry.tools()).toEqual([]);
    expect(sweeps).toBe(0);
  });

  test('a bye naming an instance that still answers its PING is refused, and the instance stays', async () => {
    const added = nextEvent(registry, 'instance_added');
    const worker = await serve('host-a');
    await added;
    const { id } = worker.instances[0]!;
    const removals: unknown[] = [];
    registry.on('instance_removed', (e) => removals.push(e));

    // Anyone allowed to announce could publish this: the instance itself is alive.
    const bye: Bye = { v: 1, tool: 'echo', instance_id: id, host: 'host-a', reason: 'spoofed' };
    const refused = nextEvent(registry, 'bye_refused');
    const nc = await nats.connect();
    nc.publish(REGISTRY_BYE_SUBJECT, enc.encode(JSON.stringify(bye)));
    expect(await refused).toEqual({ tool: 'echo', instanceId: id });
    expect(removals).toEqual([]);
    expect(registry.tool('echo')?.instances.map((i) => i.id)).toEqual([id]);
    expect((await registry.sweep()).replies).toBe(1);
    expect(registry.tool('echo')?.instances.map((i) => i.id)).toEqual([id]);
  });

  test('an instance whose bye was taken is not re-added by a late INFO answer', async () => {
    const added = nextEvent(registry, 'instance_added');
    const worker = await serve('host-a');
    await added;
    const { id } = worker.instances[0]!;
    // A replayer answers the sweep's $SRV.INFO with the instance's INFO after it has gone,
    // like a reply that was in flight while it shut down.
    const replayer = await nats.connect();
    const info = (await replayer.request(`$SRV.INFO.${worker.instances[0]!.service}.${id}`)).data;
    replayer.subscribe('$SRV.INFO', {
      callback: (_err, msg) => {
        msg.respond(info);
      },
    });
    await replayer.flush();

    const removed = nextEvent(registry, 'instance_removed');
    await worker.stop();
    expect(await removed).toMatchObject({ reason: 'bye', toolRemoved: true });
    const sweep = await registry.sweep();
    expect(sweep.replies).toBe(1);
    expect(registry.tool('echo')).toBeUndefined();
  });

  test('a closed registry ignores hellos and refuses to sweep', async () => {
    await registry.close();
    const witness = await startRegistry({
      nc: await nats.connect(),
      sweepIntervalMs: 60_000,
      sweepWindowMs: 300,
    });
    try {
      const seen = nextEvent(witness, 'instance_added');
      await serve('host-a');
      await seen;
      expect(registry.tools()).toEqual([]);
      await expect(registry.sweep()).rejects.toThrow(RegistryClosedError);
    } finally {
      await witness.close();
    }
  });
});
