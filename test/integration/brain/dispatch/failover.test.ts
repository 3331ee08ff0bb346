import { afterEach, expect, test } from 'vitest';
import { createDispatcher } from '../../../../src/brain/dispatch/index.js';
import { Registry } from '../../../../src/brain/registry/index.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import type { DispatchReply } from '../../../../src/protocol/index.js';
import { spawnWorker, type ChildWorker } from '../../../fixtures/child-worker.js';
import { createEchoTool } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';
import { nextEvent } from '../registry/events.js';

let nats: TestNats | undefined;
let child: ChildWorker | undefined;
let survivor: ToolWorker | undefined;
let registry: Registry | undefined;

afterEach(async () => {
  await child?.stop();
  await survivor?.stop();
  await registry?.close();
  await nats?.stop();
  child = survivor = registry = nats = undefined;
});

interface Call {
  id: string;
  sentAt: number;
  reply?: DispatchReply;
}

test('kill -9 of one instance mid-stream loses at most the calls it held; later calls succeed on the other; the registry drops it within 2 sweeps', async () => {
  nats = await startNats();
  // The victim runs in its own process; each call takes 20 ms so it always holds a few.
  // With LANES calls outstanding at any moment, it can never hold more than that.
  const LANES = 8;
  child = await spawnWorker(nats.url, { host: 'victim', maxConcurrency: 4, maxQueue: 8 });
  survivor = await serveTools([createEchoTool()], { nc: await nats.connect(), host: 'survivor' });
  const victimId = child.instances[0]!.id;
  const survivorId = survivor.instances[0]!.id;
  const r = (registry = new Registry({
    nc: await nats.connect(),
    sweepIntervalMs: 200,
    sweepWindowMs: 100,
  }));
  let lastSweep = 0;
  r.on('sweep', (e) => (lastSweep = e.seq));
  await r.start();
  expect(r.tool('echo')?.instances.map((i) => i.host)).toEqual(['survivor', 'victim']);

  const dispatcher = createDispatcher({ nc: await nats.connect() });
  const calls: Call[] = [];
  let stopAfter = Infinity;
  let n = 0;
  const stream = Promise.all(
    Array.from({ length: LANES }, async () => {
      while (calls.length < stopAfter) {
        const call: Call = { id: `c${n++}`, sentAt: performance.now() };
        calls.push(call);
        call.reply = await dispatcher.dispatch(
          'echo',
          { id: call.id, sleepMs: 20 },
          {
            decisionId: call.id,
            deadline: Date.now() + 1500,
          },
        );
      }
    }),
  );
  stream.catch(() => undefined); // awaited below; if an assertion fails first, teardown ends it

  await waitFor(() => child!.executed.length >= 20, 'the victim to run some calls');
  const removed = nextEvent(r, 'instance_removed', (e) => e.instance.id === victimId, 10_000);
  const sweepAtKill = lastSweep;
  child.signal('SIGKILL');
  await child.exited;
  const exitedAt = performance.now();

  const event = await removed;
  expect(event.reason).toBe('missed_sweeps');
  // At most one sweep was under way at the kill (and may have had its answer); then two misses.
  expect(event.sweep! - sweepAtKill).toBeGreaterThanOrEqual(2);
  expect(event.sweep! - sweepAtKill).toBeLessThanOrEqual(3);
  expect(r.tool('echo')?.instances.map((i) => i.id)).toEqual([survivorId]);

  // Keep streaming a while after the registry dropped it, then stop.
  stopAfter = calls.length + 100;
  await stream;

  const failed = calls.filter((c) => !c.reply?.success);
  expect(failed.length).toBeLessThanOrEqual(LANES);
  for (const c of failed) {
    expect(c.reply?.success === false && c.reply.error.code, c.id).toBe('dispatch_timeout');
    // Lost calls were sent before the victim died (routed to it before the server knew).
    expect(c.sentAt, c.id).toBeLessThan(exitedAt);
  }
  const later = calls.filter((c) => c.sentAt > exitedAt + 100);
  expect(later.length).toBeGreaterThanOrEqual(100);
  for (const c of later) {
    expect(c.reply?.success, c.id).toBe(true);
    expect(c.reply?.success && c.reply.worker.id).toBe(survivorId);
  }
});
