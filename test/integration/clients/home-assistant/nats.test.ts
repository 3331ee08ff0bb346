import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../../src/brain/dispatch/index.js';
import { serveTools, type ToolWorker } from '../../../../src/legion/index.js';
import {
  PreflightReplySchema,
  preflightSubject,
  type DispatchReply,
} from '../../../../src/protocol/index.js';
import { loadShippedTools } from '../../../../workers/index.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../../helpers/fake-home-assistant.js';
import { startNats, type TestNats } from '../../../helpers/nats.js';
import { AREAS, DEVICES, HOME } from './fixtures.js';

/** Both Home Assistant tools served over a real nats-server, called through the brain's dispatcher. */
let nats: TestNats;
let ha: FakeHomeAssistant;
let worker: ToolWorker;
let dispatcher: Dispatcher;
const replies: DispatchReply[] = [];

beforeAll(async () => {
  nats = await startNats();
  ha = await startFakeHomeAssistant({ entities: HOME, areas: AREAS, devices: DEVICES });
  const tools = await loadShippedTools(['call_service', 'ha_entities']);
  // As the config loader hands it over, with env strings not yet coerced.
  const config = {
    ha: { url: ha.url, token: FAKE_HA_TOKEN, timeout_seconds: '5', verify_ssl: 'true' },
  };
  worker = await serveTools(tools, { nc: await nats.connect(), host: 'ha-host', config });
  dispatcher = createDispatcher({ nc: await nats.connect() });
});
afterAll(async () => {
  await worker?.stop();
  await ha?.close();
  await nats?.stop();
});

let n = 0;
async function dispatch(tool: string, input: unknown): Promise<DispatchReply> {
  n += 1;
  const reply = await dispatcher.dispatch(tool, input, {
    decisionId: `d-ha-${n}`,
    deadline: Date.now() + 10_000,
  });
  replies.push(reply);
  return reply;
}

function resultOf(reply: DispatchReply): Record<string, unknown> {
  if (!reply.success) throw new Error(`expected success, got ${JSON.stringify(reply.error)}`);
  return reply.result as Record<string, unknown>;
}

describe('Home Assistant tools over NATS', () => {
  test('resolve "the kitchen light" with ha_entities, then turn it on with call_service', async () => {
    const found = resultOf(
      await dispatch('ha_entities', { query: 'the kitchen light', domain: 'light' }),
    );
    expect(found.resolved).toEqual({ entity_id: 'light.kitchen', name: 'Kitchen Light' });
    const done = resultOf(
      await dispatch('call_service', {
        domain: 'light',
        service: 'turn_on',
        target: { entity_id: (found.resolved as { entity_id: string }).entity_id },
      }),
    );
    expect(done).toMatchObject({
      service: 'light.turn_on',
      changed: true,
      verified: true,
      summary: 'Kitchen Light: off -> on.',
    });
    expect(ha.states.get('light.kitchen')?.state).toBe('on');
  });

  test('a top-level entity_id is refused by the SDK with invalid_input, and nothing is called', async () => {
    const reply = await dispatch('call_service', {
      domain: 'light',
      service: 'turn_off',
      entity_id: 'light.kitchen',
    });
    expect(reply).toMatchObject({ success: false, error: { code: 'invalid_input' } });
    expect(ha.seen('POST', '/api/services/light/turn_off')).toEqual([]);
  });

  test('an allowed target plus a top-level entity_id is refused with invalid_input naming the key', async () => {
    const reply = await dispatch('call_service', {
      domain: 'switch',
      service: 'turn_off',
      target: { entity_id: 'switch.fan_1' },
      entity_id: 'switch.fridge',
    });
    expect(reply).toMatchObject({ success: false, error: { code: 'invalid_input' } });
    expect(!reply.success && reply.error.message).toContain('entity_id');
    expect(ha.seen('POST', '/api/services/switch/turn_off')).toEqual([]);
  });

  test('a coded failure travels with its code: an unknown service names the closest', async () => {
    const reply = await dispatch('call_service', { domain: 'light', service: 'trun_on' });
    expect(reply).toMatchObject({
      success: false,
      error: { code: 'invalid_input', retryable: false },
    });
    expect(!reply.success && reply.error.message).toContain('did you mean light.turn_on?');
  });

  test('both preflights answer on their subjects', async () => {
    const nc = await nats.connect();
    for (const tool of ['call_service', 'ha_entities']) {
      const msg = await nc.request(preflightSubject(tool), undefined, { timeout: 10_000 });
      const reply = PreflightReplySchema.parse(JSON.parse(new TextDecoder().decode(msg.data)));
      expect(reply).toMatchObject({ tool, ok: true, execution_locality: 'lan' });
      expect(reply.checks.map((c) => c.name)).toContain('api');
    }
  });

  test('nothing the worker answered carries the token, and nothing posted to /api/states', () => {
    expect(replies.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(replies)).not.toContain(FAKE_HA_TOKEN);
    expect(ha.seen('POST', /^\/api\/states/)).toEqual([]);
  });
});
