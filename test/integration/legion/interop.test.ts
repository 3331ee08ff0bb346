import { Svcm } from '@nats-io/services';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { serveTools, type ToolWorker } from '../../../src/legion/index.js';
import {
  SRV_METADATA,
  ToolSpecSchema,
  dispatchSubject,
  specSha256,
} from '../../../src/protocol/index.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { probeTool } from './tools.js';

let nats: TestNats;
let worker: ToolWorker;

beforeAll(async () => {
  nats = await startNats();
  worker = await serveTools([probeTool], { nc: await nats.connect(), host: 'interop-host' });
});
afterAll(async () => {
  await worker?.stop();
  await nats?.stop();
});

test('the official @nats-io/services client discovers the tool and reads INFO and STATS', async () => {
  const nc = await nats.connect();
  const client = new Svcm(nc).client({ maxWait: 500, strategy: 'timer' });

  const pings = [];
  for await (const p of await client.ping()) pings.push(p);
  expect(pings.map((p) => p.name)).toContain('caesar-probe');

  const infos = [];
  for await (const i of await client.info('caesar-probe')) infos.push(i);
  expect(infos).toHaveLength(1);
  const info = infos[0]!;
  expect(info.id).toBe(worker.instances[0]!.id);
  expect(info.version).toBe('1.0.0');
  expect(info.endpoints.map((e) => e.subject)).toContain(dispatchSubject('probe'));
  const spec = ToolSpecSchema.parse(JSON.parse(info.metadata![SRV_METADATA.spec]!));
  expect(info.metadata![SRV_METADATA.specSha256]).toBe(specSha256(spec));
  expect(spec.input_schema).toMatchObject({ type: 'object', required: ['text'] });

  const stats = [];
  for await (const s of await client.stats('caesar-probe', info.id)) stats.push(s);
  expect(stats).toHaveLength(1);
  expect(stats[0]!.endpoints!.map((e) => e.name).sort()).toEqual(['dispatch', 'preflight']);
  expect(typeof stats[0]!.started).toBe('string');
});
