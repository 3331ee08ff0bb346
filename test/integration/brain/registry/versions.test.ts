import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startRegistry, type Registry } from '../../../../src/brain/registry/index.js';
import { compareVersions } from '../../../../src/brain/registry/semver.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import { createEchoTool } from '../../../fixtures/tools.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { nextEvent } from './events.js';

test.each([
  ['1.10.0', '1.2.0', 1],
  ['2.0.0', '10.0.0', -1],
  ['1.0.0', '1.0.0', 0],
  ['1.0.0', '1.0.0-rc.1', 1],
  ['1.0.0-alpha', '1.0.0-alpha.1', -1],
  ['1.0.0-alpha.1', '1.0.0-alpha.beta', -1],
  ['1.0.0-beta.11', '1.0.0-beta.2', 1],
  ['1.0.0-rc.1', '1.0.0-beta', 1],
])('compareVersions(%s, %s) has the sign of %i', (a, b, sign) => {
  expect(Math.sign(compareVersions(a, b))).toBe(sign);
});

describe('instances of one tool running different versions', () => {
  let nats: TestNats;
  let registry: Registry;
  const workers: ToolWorker[] = [];

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

  test("the tool exposes the newest version's spec and each instance keeps its own", async () => {
    const older = createEchoTool({ version: '1.2.0' });
    const newer = createEchoTool({ version: '1.10.0' });
    const both = Promise.all([
      nextEvent(registry, 'instance_added', (e) => e.instance.version === '1.2.0'),
      nextEvent(registry, 'instance_added', (e) => e.instance.version === '1.10.0'),
    ]);
    const a = await serveTools([older], { nc: await nats.connect(), host: 'a' });
    const b = await serveTools([newer], { nc: await nats.connect(), host: 'b' });
    workers.push(a, b);
    await both;

    const tool = registry.tool('echo')!;
    expect(tool.spec.version).toBe('1.10.0');
    expect(tool.specSha256).toBe(newer.specSha256);
    expect(tool.instances.map((i) => [i.host, i.version, i.spec.version])).toEqual([
      ['a', '1.2.0', '1.2.0'],
      ['b', '1.10.0', '1.10.0'],
    ]);

    const gone = nextEvent(registry, 'instance_removed');
    await b.stop();
    await gone;
    expect(registry.tool('echo')?.spec.version).toBe('1.2.0');
    expect(registry.tool('echo')?.specSha256).toBe(older.specSha256);
  });

  test('snapshots handed out cannot be edited', async () => {
    const added = nextEvent(registry, 'instance_added');
    workers.push(await serveTools([createEchoTool()], { nc: await nats.connect() }));
    await added;
    const tool = registry.tool('echo')!;
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool.spec.input_schema)).toBe(true);
    expect(Object.isFrozen(tool.instances)).toBe(true);
  });
});
