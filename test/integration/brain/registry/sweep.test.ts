import type { NatsConnection } from '@nats-io/nats-core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { Registry, startRegistry } from '../../../../src/brain/registry/index.js';
import type { RegistryOptions } from '../../../../src/brain/registry/options.js';
import { action, defineTool, serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import {
  REGISTRY_HELLO_SUBJECT,
  SRV_METADATA,
  SRV_TYPES,
  srvSubject,
} from '../../../../src/protocol/index.js';
import { spawnWorker, type ChildWorker } from '../../../fixtures/child-worker.js';
import { createEchoTool } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { nextEvent } from './events.js';

const enc = new TextEncoder();

describe('registry sweeps', () => {
  let nats: TestNats;
  let registry: Registry | undefined;
  const workers: ToolWorker[] = [];
  const children: ChildWorker[] = [];

  beforeEach(async () => {
    nats = await startNats();
  });
  afterEach(async () => {
    await Promise.allSettled(children.splice(0).map((c) => c.stop()));
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await registry?.close();
    registry = undefined;
    await nats?.stop();
  });

  test('a registry started after the worker finds it by its first sweep', async () => {
    const tool = createEchoTool();
    const worker = await serveTools([tool], { nc: await nats.connect(), host: 'early-host' });
    workers.push(worker);

    registry = await startRegistry({
      nc: await nats.connect(),
      sweepIntervalMs: 60_000,
      sweepWindowMs: 300,
    });

    const found = registry.tool('echo');
    expect(found?.spec).toEqual(tool.spec);
    expect(found?.specSha256).toBe(tool.specSha256);
    expect(found?.instances).toHaveLength(1);
    expect(found?.instances[0]).toMatchObject({
      id: worker.instances[0]!.id,
      host: 'early-host',
      version: '1.0.0',
      source: 'sweep',
    });
  });

  test('the first sweep ends soon after the last answer; later sweeps wait out their window', async () => {
    for (const host of ['host-a', 'host-b']) {
      workers.push(await serveTools([createEchoTool()], { nc: await nats.connect(), host }));
    }
    const started = performance.now();
    registry = await startRegistry({
      nc: await nats.connect(),
      sweepIntervalMs: 60_000,
      sweepWindowMs: 5_000,
    });
    const startMs = performance.now() - started;
    // both answered within the first sweep, which did not wait the 5 s window for more
    expect(
      registry
        .tool('echo')
        ?.instances.map((i) => i.host)
        .sort(),
    ).toEqual(['host-a', 'host-b']);
    expect(startMs).toBeLessThan(4_000);
    // a later sweep, where a late answer would count as a miss, takes the whole window
    const sweepStarted = performance.now();
    await registry.sweep();
    expect(performance.now() - sweepStarted).toBeGreaterThanOrEqual(4_900);
    expect(registry.tool('echo')?.instances).toHaveLength(2);
  });

  /** A client (closed with the server) answering every `$SRV.INFO` malformed, `delayMs` late. */
  async function lateResponder(delayMs: number): Promise<void> {
    const nc = await nats.connect();
    nc.subscribe(srvSubject('INFO'), {
      callback: (_err, msg) => {
        setTimeout(() => msg.respond(enc.encode('late')), delayMs);
      },
    });
    await nc.flush();
  }

  /** Starts a registry expecting `expectedTools` (sweeps: 60 s apart, 5 s windows); what its first sweep saw. */
  async function firstSweep(
    options: Pick<RegistryOptions, 'expectedTools' | 'firstSweepGraceMs'>,
  ): Promise<{ replies: number; invalid: number }> {
    const r = new Registry({
      nc: await nats.connect(),
      sweepIntervalMs: 60_000,
      sweepWindowMs: 5_000,
      ...options,
    });
    registry = r;
    const seen = new Promise<{ replies: number; invalid: number }>((resolve) =>
      r.once('sweep', resolve),
    );
    await r.start();
    return seen;
  }

  const serveEcho = async () =>
    workers.push(
      await serveTools([createEchoTool()], { nc: await nats.connect(), host: 'host-a' }),
    );

  test('the first sweep ends once every expected tool answered, not at the stall after it', async () => {
    await serveEcho();
    // answers 250 ms late: within the 300 ms a first sweep waits after the last answer
    await lateResponder(250);
    const first = await firstSweep({ expectedTools: ['echo'], firstSweepGraceMs: 0 });
    // echo answered, so the sweep ended before the late answer came
    expect(first).toMatchObject({ replies: 1, invalid: 0 });
    expect(registry!.tool('echo')?.instances.map((i) => i.host)).toEqual(['host-a']);
  });

  test('a first sweep whose expected tool never answers ends as before, with what did answer', async () => {
    await serveEcho();
    await lateResponder(100);
    const first = await firstSweep({
      expectedTools: ['echo', 'not_running'],
      firstSweepGraceMs: 0,
    });
    // it waited for more answers (the late one came), then ended long before the window
    expect(first).toMatchObject({ replies: 1, invalid: 1 });
    expect(registry!.tool('echo')?.instances).toHaveLength(1);
  });

  test("a tool's name expects its actions: the first answer ends the sweep, the grace takes the rest", async () => {
    const note = (description: string) =>
      action({
        description,
        input: z.strictObject({}),
        output: z.object({ ok: z.boolean() }),
        annotations: { readOnly: true, openWorld: false },
        handler: () => ({ ok: true }),
      });
    const notes = defineTool({
      name: 'notes',
      version: '1.0.0',
      description: 'Reads and writes the household notes.',
      executionLocality: 'local',
      resourceRequirements: { cpu: 'low', memory_mb: 8, network: false },
      actions: { read: note('Reads a note.'), write: note('Writes a note.') },
    });
    workers.push(await serveTools([notes], { nc: await nats.connect(), host: 'host-a' }));
    await lateResponder(250);
    // the default grace (50 ms)
    const first = await firstSweep({ expectedTools: ['notes'] });
    // both actions of the one worker, not the late answer
    expect(first).toMatchObject({ replies: 2, invalid: 0 });
    expect(registry!.tools().map((t) => t.name)).toEqual(['notes.read', 'notes.write']);
  });

  test('an instance that said hello during the first sweep is listed when start resolves', async () => {
    await serveEcho();
    // A worker of `late`, served on a server of its own: its hello and its INFO answer are
    // replayed here by a client that says the hello when the sweep asks, never answers the
    // sweep itself (it started listening too late), and answers its own INFO 400 ms late.
    const { hello, info, service, id } = await (async () => {
      await using other = await startNats();
      const onOther = await other.connect();
      const said = new Promise<Uint8Array>((resolve) =>
        onOther.subscribe(REGISTRY_HELLO_SUBJECT, { max: 1, callback: (_e, m) => resolve(m.data) }),
      );
      await onOther.flush();
      const w = await serveTools([createEchoTool({ name: 'late' })], { nc: onOther });
      const { service, id } = w.instances[0]!;
      const answer = await onOther.request(srvSubject('INFO', service, id));
      await w.stop();
      return { hello: await said, info: answer.data, service, id };
    })();
    const nc = await nats.connect();
    nc.subscribe(srvSubject('INFO', service, id), {
      callback: (_err, msg) => void setTimeout(() => msg.respond(info), 400),
    });
    nc.subscribe(srvSubject('INFO'), {
      callback: () => nc.publish(REGISTRY_HELLO_SUBJECT, hello),
    });
    await nc.flush();

    // the sweep ends 100 ms after echo answered, while the hello's check still waits
    const first = await firstSweep({ expectedTools: ['echo'], firstSweepGraceMs: 100 });
    expect(first).toMatchObject({ replies: 1 });
    expect(registry!.tool('late')?.instances.map((i) => [i.id, i.source])).toEqual([[id, 'hello']]);
  });

  test('drops an instance after two missed sweeps, not one, and finds it again when it answers', async () => {
    const child = await spawnWorker(nats.url, { host: 'frozen-host' });
    children.push(child);
    registry = await startRegistry({
      nc: await nats.connect(),
      sweepIntervalMs: 200,
      sweepWindowMs: 100,
    });
    const r = registry;
    expect(r.tool('echo')?.instances.map((i) => i.id)).toEqual([child.instances[0]!.id]);

    // Freeze the process right after it answered a sweep: its connection stays open, it
    // just stops answering, so exactly the next two sweeps are misses.
    const removed = nextEvent(r, 'instance_removed', () => true, 10_000);
    const frozenAfter = await new Promise<number>((resolve) => {
      const onSweep = (e: { seq: number; replies: number }) => {
        if (e.replies !== 1) return;
        child.signal('SIGSTOP');
        r.off('sweep', onSweep);
        resolve(e.seq);
      };
      r.on('sweep', onSweep);
    });
    const event = await removed;

    expect(event.reason).toBe('missed_sweeps');
    expect(event.instance.id).toBe(child.instances[0]!.id);
    expect(event.toolRemoved).toBe(true);
    expect(event.sweep).toBe(frozenAfter + 2);
    expect(r.tool('echo')).toBeUndefined();

    const back = nextEvent(r, 'instance_added');
    child.signal('SIGCONT');
    const again = await back;
    expect(again.instance).toMatchObject({ id: child.instances[0]!.id, source: 'sweep' });
  });

  test('ignores malformed hellos and INFO replies and keeps working', async () => {
    const nc = await nats.connect();
    const good = createEchoTool();
    // A service that claims to be a CAESAR tool but carries a spec that fails its sha, one
    // that answers garbage, and a foreign service: none may enter the registry.
    answerInfo(nc, () => 'this is not json');
    answerInfo(nc, () =>
      JSON.stringify({
        type: SRV_TYPES.info,
        name: 'caesar-forged',
        id: 'FORGED1',
        version: '1.0.0',
        metadata: {
          [SRV_METADATA.tool]: 'forged',
          [SRV_METADATA.host]: 'evil',
          [SRV_METADATA.spec]: JSON.stringify({ ...good.spec, name: 'forged' }),
          [SRV_METADATA.specSha256]: good.specSha256,
        },
        endpoints: [],
      }),
    );
    answerInfo(nc, () =>
      JSON.stringify({
        type: SRV_TYPES.info,
        name: 'someone-else',
        id: 'X1',
        version: '0.1.0',
        metadata: {},
        endpoints: [],
      }),
    );
    await nc.flush();

    registry = await startRegistry({
      nc: await nats.connect(),
      sweepIntervalMs: 60_000,
      sweepWindowMs: 300,
    });
    const r = registry;
    const sweep = await r.sweep();
    expect(sweep.invalid).toBe(2);
    expect(sweep.replies).toBe(0);
    expect(r.tools()).toEqual([]);

    for (const junk of [
      'not json',
      '{}',
      JSON.stringify({ v: 1, tool: 'Bad-Name', service: 'caesar-x', instance_id: 'A', host: 'h' }),
      JSON.stringify({
        v: 1,
        tool: 'echo',
        service: 'caesar-other',
        instance_id: 'A1',
        host: 'h',
        version: '1.0.0',
        spec_sha256: good.specSha256,
      }),
    ]) {
      nc.publish(REGISTRY_HELLO_SUBJECT, enc.encode(junk));
    }
    const added = nextEvent(r, 'instance_added');
    const worker = await serveTools([good], { nc: await nats.connect(), host: 'good-host' });
    workers.push(worker);
    expect((await added).instance.id).toBe(worker.instances[0]!.id);
    expect(r.tools().map((t) => t.name)).toEqual(['echo']);
  });

  test('rejects a sweep window that is not shorter than the interval', async () => {
    await expect(
      startRegistry({ nc: await nats.connect(), sweepIntervalMs: 100, sweepWindowMs: 100 }),
    ).rejects.toThrow(RangeError);
  });
});

function answerInfo(nc: NatsConnection, body: () => string): void {
  nc.subscribe(srvSubject('INFO'), {
    callback: (_err, msg) => {
      msg.respond(enc.encode(body()));
    },
  });
}
