import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createCallServiceTool } from '../../../workers/call_service/index.js';
import { HaConfigSchema } from '../../../src/clients/home-assistant/config.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeEntityInit,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import { closedPort } from '../../helpers/ports.js';
import { haConfig, rejectionOf, startTool } from '../clients/home-assistant/harness.js';

const ENTITIES: FakeEntityInit[] = [
  { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen Light' } },
  { entity_id: 'light.hall', state: 'on', attributes: { friendly_name: 'Hall Light' } },
  {
    entity_id: 'light.porch',
    state: 'off',
    attributes: { friendly_name: 'Porch Light' },
    device: 'frozen',
  },
  {
    entity_id: 'light.bedroom',
    state: 'off',
    attributes: { friendly_name: 'Bedroom Lamp' },
    device: { delayMs: 300 },
  },
  {
    entity_id: 'light.living',
    state: 'off',
    area_id: 'living_room',
    attributes: { friendly_name: 'Living Light' },
  },
  { entity_id: 'switch.fan', state: 'off', attributes: { friendly_name: 'Desk Fan' } },
  { entity_id: 'lock.front_door', state: 'locked', attributes: { friendly_name: 'Front Door' } },
  { entity_id: 'weather.home', state: 'sunny', attributes: { friendly_name: 'Home' } },
];

/** Everything any call answered, searched for the token at the end. */
const seen: unknown[] = [];
const remember = <T>(v: T): T => {
  seen.push(v);
  return v;
};

let ha: FakeHomeAssistant;
beforeEach(async () => {
  ha = await startFakeHomeAssistant({ entities: ENTITIES });
});
afterEach(async () => {
  // Never Home Assistant's record instead of the device (POST /api/states/<id>).
  expect(ha.seen('POST', /^\/api\/states/)).toEqual([]);
  seen.push(ha.requests.map((r) => r.url));
  await ha.close();
});
afterAll(() => {
  const text = JSON.stringify(seen, (_k, v: unknown) =>
    v instanceof Error ? { message: v.message, details: (v as { details?: unknown }).details } : v,
  );
  expect(text.length).toBeGreaterThan(1000);
  expect(text).not.toContain(FAKE_HA_TOKEN);
});

/** A started call_service against `ha` (settle window shortened where a test says). */
async function tool(
  config: Record<string, unknown> = {},
  options: Parameters<typeof createCallServiceTool>[0] = {},
) {
  return startTool(createCallServiceTool(options), haConfig(ha, config));
}

async function call(t: Awaited<ReturnType<typeof tool>>, input: unknown, deadlineMs?: number) {
  return remember(await t.call(input, deadlineMs === undefined ? {} : { deadlineMs }));
}

async function failure(t: Awaited<ReturnType<typeof tool>>, input: unknown) {
  return remember(await rejectionOf(t.call(input)));
}

const turnOn = (entity_id: unknown) => ({
  domain: 'light',
  service: 'turn_on',
  target: { entity_id },
});

describe('call_service against a fake Home Assistant', () => {
  test('turn_on that changes the state reports before and after, verified', async () => {
    await using t = await tool();
    const r = await call(t, turnOn('light.kitchen'));
    expect(r).toEqual({
      service: 'light.turn_on',
      changed: true,
      verified: true,
      summary: 'Kitchen Light: off -> on.',
      entities: [
        {
          entity_id: 'light.kitchen',
          name: 'Kitchen Light',
          before: 'off',
          after: 'on',
          changed: true,
        },
      ],
    });
    const [post] = ha.seen('POST', '/api/services/light/turn_on');
    expect(post?.headers.authorization).toBe(`Bearer ${FAKE_HA_TOKEN}`);
    expect(post?.url).toBe('/api/services/light/turn_on');
    expect(JSON.parse(post?.body ?? '')).toEqual({ entity_id: ['light.kitchen'] });
    expect(ha.states.get('light.kitchen')?.state).toBe('on');
  });

  test('targets from target and data are merged, split, lowercased and sent with the data', async () => {
    await using t = await tool();
    const r = await call(t, {
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: 'Light.Kitchen, light.hall' },
      data: { brightness_pct: 40, entity_id: ['light.kitchen'] },
    });
    const [post] = ha.seen('POST', '/api/services/light/turn_on');
    expect(JSON.parse(post?.body ?? '')).toEqual({
      brightness_pct: 40,
      entity_id: ['light.kitchen', 'light.hall'],
    });
    expect(r.summary).toBe('Kitchen Light: off -> on; Hall Light was already on.');
    expect(r.changed).toBe(true);
  });

  test('a light that is already on: not changed, "was already on"', async () => {
    await using t = await tool();
    const r = await call(t, turnOn('light.hall'));
    expect(r).toMatchObject({
      changed: false,
      verified: true,
      summary: 'Hall Light was already on.',
    });
    expect(r.entities[0]).toMatchObject({ before: 'on', after: 'on', changed: false });
  });

  test('a service that changes nothing: the entity stayed as it was', async () => {
    await using t = await tool({}, { settle: { settleMs: 200, pollMs: 50 } });
    const r = await call(t, {
      domain: 'homeassistant',
      service: 'update_entity',
      target: { entity_id: 'light.kitchen' },
    });
    expect(r).toMatchObject({
      changed: false,
      verified: true,
      summary: 'Kitchen Light stayed off.',
      entities: [{ entity_id: 'light.kitchen', before: 'off', after: 'off', changed: false }],
    });
  });

  test('a service without targets reports what Home Assistant reported, unverified', async () => {
    await using t = await tool();
    const r = await call(t, {
      domain: 'notify',
      service: 'send_message',
      data: { message: 'hello' },
    });
    expect(r).toEqual({
      service: 'notify.send_message',
      changed: false,
      verified: false,
      summary: 'notify.send_message ran; Home Assistant reported no state change.',
      entities: [],
    });
  });

  test('an entity that never changes: changed false, "stayed off", re-read within the window', async () => {
    await using t = await tool({}, { settle: { settleMs: 300, pollMs: 50 } });
    const r = await call(t, turnOn('light.porch'));
    expect(r).toMatchObject({
      changed: false,
      verified: true,
      summary: 'Porch Light stayed off.',
      entities: [{ entity_id: 'light.porch', before: 'off', after: 'off', changed: false }],
    });
    // one read before, one after the call, then at least one more while waiting
    expect(ha.seen('GET', '/api/states/light.porch').length).toBeGreaterThanOrEqual(3);
  });

  test('a device that reports late is caught within the settle window', async () => {
    await using t = await tool({}, { settle: { settleMs: 10_000, pollMs: 50 } });
    const r = await call(t, turnOn('light.bedroom'), 15_000);
    expect(r).toMatchObject({
      changed: true,
      verified: true,
      summary: 'Bedroom Lamp: off -> on.',
      entities: [{ entity_id: 'light.bedroom', before: 'off', after: 'on', changed: true }],
    });
    expect(ha.calls).toHaveLength(1);
  });

  test('the settle window ends at the call deadline, not later', async () => {
    await using t = await tool({}, { settle: { settleMs: 60_000, pollMs: 50 } });
    // The harness's signal aborts at the deadline: a handler still waiting then would fail.
    const r = await call(t, turnOn('light.porch'), 3000);
    expect(r.summary).toBe('Porch Light stayed off.');
  });

  test('toggle, lock and switch services word their outcome', async () => {
    await using t = await tool();
    const toggled = await call(t, {
      domain: 'switch',
      service: 'toggle',
      target: { entity_id: 'switch.fan' },
    });
    expect(toggled.summary).toBe('Desk Fan: off -> on.');
    const unlocked = await call(t, {
      domain: 'lock',
      service: 'unlock',
      target: { entity_id: 'lock.front_door' },
    });
    expect(unlocked.summary).toBe('Front Door: locked -> unlocked.');
  });

  test('an area target is unverified and reports the changed-states list', async () => {
    await using t = await tool();
    const r = await call(t, {
      domain: 'light',
      service: 'turn_on',
      target: { area_id: 'living_room' },
    });
    expect(r).toEqual({
      service: 'light.turn_on',
      changed: true,
      verified: false,
      summary:
        'light.turn_on ran on area living_room; Home Assistant reported: Living Light: now on.',
      entities: [
        {
          entity_id: 'light.living',
          name: 'Living Light',
          before: null,
          after: 'on',
          changed: true,
        },
      ],
    });
  });
});

describe('return_response', () => {
  test('a service that always responds is asked for its response without being told', async () => {
    await using t = await tool();
    const r = await call(t, {
      domain: 'weather',
      service: 'get_forecasts',
      target: { entity_id: 'weather.home' },
      data: { type: 'daily' },
    });
    expect(r.response).toEqual({ 'weather.home': { forecast: [{ temperature: 21 }] } });
    const posts = ha.seen('POST', '/api/services/weather/get_forecasts');
    expect(posts.map((p) => p.url)).toEqual([
      '/api/services/weather/get_forecasts?return_response=',
    ]);
  });

  test('a service that may respond is asked only when the caller wants it', async () => {
    await using t = await tool();
    const without = await call(t, {
      domain: 'conversation',
      service: 'process',
      data: { text: 'hi' },
    });
    expect(without.response).toBeUndefined();
    const withIt = await call(t, {
      domain: 'conversation',
      service: 'process',
      data: { text: 'hi' },
      return_response: true,
    });
    expect(withIt.response).toEqual({ response: { speech: { plain: { speech: 'heard hi' } } } });
    expect(ha.seen('POST', '/api/services/conversation/process').map((p) => p.url)).toEqual([
      '/api/services/conversation/process',
      '/api/services/conversation/process?return_response=',
    ]);
  });

  test('asking a service that never responds is invalid_input, and nothing is called', async () => {
    await using t = await tool();
    const err = await failure(t, { ...turnOn('light.kitchen'), return_response: true });
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toMatch(
      /light\.turn_on returns no response; call it without return_response/,
    );
    expect(ha.calls).toHaveLength(0);
  });

  test('"requires responses" from Home Assistant (stale catalogue): reload and call once more with it', async () => {
    await using t = await tool();
    await call(t, turnOn('light.kitchen')); // caches the catalogue
    ha.services.set('light.turn_on', { ...ha.services.get('light.turn_on'), response: 'only' });
    const r = await call(t, turnOn('light.hall'));
    expect(r.response).toBeNull();
    expect(ha.seen('POST', '/api/services/light/turn_on').map((p) => p.url)).toEqual([
      '/api/services/light/turn_on',
      '/api/services/light/turn_on',
      '/api/services/light/turn_on?return_response=',
    ]);
    expect(ha.calls).toHaveLength(2);
  });

  test('"does not support responses" for a response we asked on our own: call once more without', async () => {
    await using t = await tool();
    await call(t, {
      domain: 'weather',
      service: 'get_forecasts',
      target: { entity_id: 'weather.home' },
    });
    ha.services.set('weather.get_forecasts', { run: () => undefined });
    const r = await call(t, {
      domain: 'weather',
      service: 'get_forecasts',
      target: { entity_id: 'weather.home' },
    });
    expect(r.response).toBeUndefined();
    expect(ha.seen('POST', '/api/services/weather/get_forecasts').map((p) => p.url)).toEqual([
      '/api/services/weather/get_forecasts?return_response=',
      '/api/services/weather/get_forecasts?return_response=',
      '/api/services/weather/get_forecasts',
    ]);
  });

  test('"does not support responses" for a response the caller asked for: invalid_input with HA\'s words', async () => {
    await using t = await tool();
    await call(t, { domain: 'conversation', service: 'process', data: { text: 'x' } });
    ha.services.set('conversation.process', { target: false });
    const err = await failure(t, {
      domain: 'conversation',
      service: 'process',
      data: { text: 'x' },
      return_response: true,
    });
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toContain('Service does not support responses');
    expect(err.message).toContain('call it without return_response');
    expect(ha.calls).toHaveLength(1);
  });
});

describe('errors', () => {
  test('a rejected token is not_configured naming CAESAR_HA__TOKEN, never the token', async () => {
    await using t = await tool({ token: 'wrong-token-123' });
    const err = await failure(t, turnOn('light.kitchen'));
    expect(err).toMatchObject({ code: 'not_configured', retryable: false });
    expect(err.message).toContain('CAESAR_HA__TOKEN (ha.token)');
    expect(err.message).not.toContain('wrong-token-123');
  });

  test('data Home Assistant refuses (a bare 400) is invalid_input naming the fields', async () => {
    ha.services.set('light.turn_on', {
      ...ha.services.get('light.turn_on'),
      validate: (d) =>
        typeof d.brightness_pct === 'number' && d.brightness_pct > 100 ? 'bad' : undefined,
    });
    await using t = await tool();
    const err = await failure(t, { ...turnOn('light.kitchen'), data: { brightness_pct: 400 } });
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toContain('HTTP 400: 400: Bad Request');
    expect(err.message).toContain('its fields are: brightness_pct');
  });

  test("a 400 with a message is invalid_input carrying Home Assistant's message", async () => {
    ha.intercept = (req, res) => {
      if (req.method !== 'POST') return false;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Entity light.kitchen does not support brightness' }));
      return true;
    };
    await using t = await tool();
    const err = await failure(t, turnOn('light.kitchen'));
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toContain('Entity light.kitchen does not support brightness');
  });

  test.each([
    [{ domain: 'light', service: 'turn_onn' }, 'did you mean light.turn_on?'],
    [{ domain: 'lights', service: 'turn_off' }, 'did you mean light.turn_off?'],
    [{ domain: 'light', service: 'switch_on' }, 'did you mean light.turn_on?'],
    [{ domain: 'light', service: 'brighten' }, 'light has: toggle, turn_off, turn_on'],
    [{ domain: 'garage', service: 'open' }, 'there is no domain garage'],
  ])('unknown service %j is invalid_input: %s', async (names, hint) => {
    await using t = await tool();
    const err = await failure(t, { ...names, target: { entity_id: 'light.kitchen' } });
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toContain(`Home Assistant has no service ${names.domain}.${names.service}`);
    expect(err.message).toContain(hint);
    expect(ha.calls).toHaveLength(0);
    expect(ha.seen('POST', /^\/api\/services\//)).toEqual([]);
  });

  test("a service removed since the catalogue was read: HA's 400, then the suggestion", async () => {
    await using t = await tool();
    await call(t, { domain: 'switch', service: 'toggle', target: { entity_id: 'switch.fan' } });
    ha.services.delete('switch.toggle');
    const err = await failure(t, {
      domain: 'switch',
      service: 'toggle',
      target: { entity_id: 'switch.fan' },
    });
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toContain(
      'Home Assistant has no service switch.toggle; switch has: turn_off, turn_on',
    );
  });

  test('an unknown entity is invalid_input naming the nearest one, and nothing is called', async () => {
    await using t = await tool();
    const err = await failure(t, turnOn('light.kitchn'));
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toContain('no entity light.kitchn (did you mean light.kitchen?)');
    expect(err.message).toContain('ha_entities');
    expect(ha.calls).toHaveLength(0);
  });

  test('a name where an entity id belongs is invalid_input pointing at ha_entities', async () => {
    await using t = await tool();
    const err = await failure(t, turnOn('kitchen light'));
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toMatch(/'kitchen light' is not an entity id.*ha_entities/);
  });

  test('no answer in time is timeout, not retryable: the service may have run', async () => {
    ha.intercept = (req) => req.method === 'POST'; // never answers the call
    await using t = await tool({ timeout_seconds: '1' });
    const err = await failure(t, turnOn('light.kitchen'));
    expect(err).toMatchObject({ code: 'timeout', retryable: false });
    expect(err.message).toMatch(/did not answer within 1000 ms/);
    expect(err.message).toMatch(/light\.turn_on may have run: check the device/);
  });

  test('a 500 is a backend_error, not retryable: the service may have run', async () => {
    ha.intercept = (req, res) => {
      if (req.method !== 'POST') return false;
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('500 Internal Server Error\n\nServer got itself in trouble');
      return true;
    };
    await using t = await tool();
    const err = await failure(t, turnOn('light.kitchen'));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toContain('HTTP 500');
    expect(err.message).toContain('may have run');
  });

  test('an unreachable Home Assistant is a retryable backend_error', async () => {
    await using t = await startTool(
      createCallServiceTool(),
      haConfig({ url: `http://127.0.0.1:${await closedPort()}` }),
    );
    const err = await failure(t, turnOn('light.kitchen'));
    expect(err).toMatchObject({ code: 'backend_error', retryable: true });
    expect(err.message).toMatch(/cannot connect/);
  });

  test('unconfigured: not_configured naming exactly the missing keys', async () => {
    await using a = await startTool(createCallServiceTool(), HaConfigSchema.parse({}));
    const err = await failure(a, turnOn('light.kitchen'));
    expect(err).toMatchObject({ code: 'not_configured' });
    expect(err.message).toBe(
      'not configured: set CAESAR_HA__URL (ha.url) and CAESAR_HA__TOKEN (ha.token) for Home Assistant',
    );
    await using b = await startTool(createCallServiceTool(), { ...haConfig(ha), token: undefined });
    const err2 = await failure(b, turnOn('light.kitchen'));
    expect(err2.message).toBe('not configured: set CAESAR_HA__TOKEN (ha.token) for Home Assistant');
  });
});

describe('TLS', () => {
  let tlsHa: FakeHomeAssistant;
  beforeEach(async () => {
    tlsHa = await startFakeHomeAssistant({ entities: ENTITIES, tls: true });
  });
  afterEach(async () => {
    await tlsHa.close();
  });

  test('verify_ssl false accepts a self-signed certificate', async () => {
    await using t = await startTool(
      createCallServiceTool(),
      haConfig(tlsHa, { verify_ssl: 'false' }),
    );
    const r = await call(t, turnOn('light.kitchen'));
    expect(r.summary).toBe('Kitchen Light: off -> on.');
  });

  test('verify_ssl true (the default) refuses it: a backend_error that says TLS', async () => {
    await using t = await startTool(createCallServiceTool(), haConfig(tlsHa));
    const err = await failure(t, turnOn('light.kitchen'));
    expect(err).toMatchObject({ code: 'backend_error', retryable: false });
    expect(err.message).toMatch(/TLS/);
    expect(tlsHa.calls).toHaveLength(0);
  });
});

describe('input schema', () => {
  test.each([
    [{ domain: 'light', service: 'turn_on', entity_id: 'light.kitchen' }, 'a top-level entity_id'],
    [
      { domain: 'light', service: 'turn_on', target: { entity: 'light.kitchen' } },
      'an unknown target key',
    ],
    [{ domain: 'Light', service: 'turn_on' }, 'an uppercase domain'],
    [{ domain: 'light', service: 'turn on' }, 'a service with a space'],
    [{ domain: 'light', service: 'turn_on', data: [1] }, 'data that is a list'],
    [
      {
        domain: 'light',
        service: 'turn_on',
        data: { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } },
      },
      'data nested too deep',
    ],
    [{ domain: 'light', service: 'turn_on', data: { s: 'x'.repeat(20_000) } }, 'data too large'],
    [
      { domain: 'light', service: 'turn_on', return_response: 'yes' },
      'a return_response that is not a boolean',
    ],
    [{ domain: 'light', service: 'turn_on', target: { entity_id: [] } }, 'an empty id list'],
    [{ service: 'turn_on' }, 'no domain'],
  ] as [unknown, string][])('%j is refused (%s)', async (input) => {
    await using t = await tool();
    expect(t.accepts(input)).toBe(false);
  });

  test('the full shape with null target and data is accepted', async () => {
    await using t = await tool();
    expect(t.accepts({ domain: 'script', service: 'turn_on', target: null, data: null })).toBe(
      true,
    );
    expect(
      t.accepts({
        domain: 'light',
        service: 'turn_on',
        target: {
          entity_id: ['light.a'],
          device_id: 'd',
          area_id: 'a',
          floor_id: 'f',
          label_id: 'l',
        },
        data: { brightness_pct: 40 },
        return_response: false,
      }),
    ).toBe(true);
  });
});
