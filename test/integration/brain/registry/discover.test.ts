import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createDispatcher } from '../../../../src/brain/dispatch/index.js';
import { discoverServices } from '../../../../src/brain/registry/index.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { createEchoTool } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { waitFor } from '../../../helpers/wait.js';

describe('discoverServices (one-shot, for `caesar legion list`)', () => {
  let nats: TestNats;
  const workers: ToolWorker[] = [];

  beforeEach(async () => {
    nats = await startNats();
  });
  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((w) => w.stop()));
    await nats?.stop();
  });

  test('returns an empty list when no tool is served', async () => {
    const started = performance.now();
    expect(await discoverServices(await nats.connect(), { windowMs: 300 })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('groups INFO and STATS by tool with versions, hosts and call figures', async () => {
    const echo = createEchoTool();
    const other = createEchoTool({ name: 'another', version: '0.3.0' });
    workers.push(
      await serveTools([echo, other], { nc: await nats.connect(), host: 'host-b' }),
      await serveTools([createEchoTool()], { nc: await nats.connect(), host: 'host-a' }),
    );
    const nc = await nats.connect();
    const dispatcher = createDispatcher({ nc });
    const deadline = () => Date.now() + 5000;
    for (let i = 0; i < 6; i++) {
      const reply = await dispatcher.dispatch(
        'echo',
        { id: `c${i}` },
        {
          decisionId: `d${i}`,
          deadline: deadline(),
        },
      );
      expect(reply.success).toBe(true);
    }
    const bad = await dispatcher.dispatch(
      'echo',
      { nope: 1 },
      { decisionId: 'bad', deadline: deadline() },
    );
    expect(bad.success).toBe(false);
    // One call stays in flight while we look.
    const slow = dispatcher.dispatch(
      'another',
      { id: 'slow', sleepMs: 1500 },
      {
        decisionId: 'slow',
        deadline: deadline(),
      },
    );
    await waitFor(() => workers[0]!.inFlight() === 1, 'the slow call to be running');

    const tools = await discoverServices(nc, { windowMs: 300 });

    expect(tools.map((t) => t.tool)).toEqual(['another', 'echo']);
    const [another, echoTool] = tools as [(typeof tools)[0], (typeof tools)[0]];
    expect(echoTool).toMatchObject({
      version: '1.0.0',
      hosts: ['host-a', 'host-b'],
      requests: 7,
      errors: 1,
      inFlight: 0,
    });
    expect(echoTool.spec).toEqual(echo.spec);
    expect(echoTool.instances.map((i) => i.host)).toEqual(['host-a', 'host-b']);
    expect(echoTool.instances.every((i) => i.stats && typeof i.stats.started === 'string')).toBe(
      true,
    );
    expect(another).toMatchObject({ version: '0.3.0', hosts: ['host-b'], inFlight: 1 });
    expect(another.instances[0]!.stats).toMatchObject({ inFlight: 1, queued: 0, requests: 0 });
    expect((await slow).success).toBe(true);
  });
});
