import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createHaEntitiesTool } from '../../../workers/ha_entities/index.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
  type FakeHomeAssistantOptions,
} from '../../helpers/fake-home-assistant.js';
import { AREAS, DEVICES, HOME } from '../clients/home-assistant/fixtures.js';
import { haConfig, rejectionOf, startTool } from '../clients/home-assistant/harness.js';

let ha: FakeHomeAssistant;
const seen: unknown[] = [];

async function home(options: FakeHomeAssistantOptions = {}) {
  ha = await startFakeHomeAssistant({ entities: HOME, areas: AREAS, devices: DEVICES, ...options });
  return ha;
}

beforeEach(async () => {
  await home();
});
afterEach(async () => {
  expect(ha.seen('POST', /.*/)).toEqual([]); // read-only: nothing is ever posted
  await ha.close();
});
afterAll(() => {
  const text = JSON.stringify(seen, (_k, v: unknown) => (v instanceof Error ? v.message : v));
  expect(text.length).toBeGreaterThan(1000);
  expect(text).not.toContain(FAKE_HA_TOKEN);
});

async function tool(
  config: Record<string, unknown> = {},
  options: Parameters<typeof createHaEntitiesTool>[0] = {},
) {
  return startTool(createHaEntitiesTool(options), haConfig(ha, config));
}

type Tool = Awaited<ReturnType<typeof tool>>;
const find = async (t: Tool, input: unknown) => {
  const r = await t.call(input);
  seen.push(r);
  return r;
};
const ids = (r: { matches: { entity_id: string }[] }) => r.matches.map((m) => m.entity_id);

describe('ha_entities: matching', () => {
  test('"kitchen light" with domain light resolves the exact name, partial ones after it', async () => {
    await using t = await tool();
    const r = await find(t, { query: 'the kitchen light', domain: 'light' });
    expect(r.resolved).toEqual({ entity_id: 'light.kitchen', name: 'Kitchen Light' });
    expect(r.ambiguous).toBe(false);
    expect(r.matches[0]).toEqual({
      entity_id: 'light.kitchen',
      name: 'Kitchen Light',
      domain: 'light',
      area: 'Kitchen',
      state: 'off',
      match: 'exact',
    });
    expect(ids(r)).toEqual(['light.kitchen', 'light.kitchen_ceiling', 'light.kitchen_counter']);
    expect(r.matches.slice(1).map((m) => m.match)).toEqual(['partial', 'partial']);
    expect(r.total).toBe(3);
  });

  test('"kitchen" finds the light named "Kitchen Light" exactly, without a domain', async () => {
    await using t = await tool();
    const r = await find(t, { query: 'kitchen' });
    expect(r.resolved?.entity_id).toBe('light.kitchen');
    expect(r.matches.filter((m) => m.match === 'exact').map((m) => m.entity_id)).toEqual([
      'light.kitchen',
    ]);
    expect(ids(r)).toContain('switch.kitchen_fan');
    expect(ids(r)).toContain('sensor.kitchen_temperature');
  });

  test('two partial matches and no exact one are ambiguous: nothing resolved, both listed', async () => {
    ha.states.delete('light.kitchen');
    await using t = await tool();
    const r = await find(t, { query: 'kitchen', domain: 'light' });
    expect(r).toMatchObject({ resolved: null, ambiguous: true, total: 2 });
    expect(r.matches.map((m) => [m.entity_id, m.match])).toEqual([
      ['light.kitchen_ceiling', 'partial'],
      ['light.kitchen_counter', 'partial'],
    ]);
  });

  test('a single partial match resolves', async () => {
    await using t = await tool();
    const r = await find(t, { query: 'ceiling' });
    expect(r).toMatchObject({
      resolved: { entity_id: 'light.kitchen_ceiling', name: 'Kitchen Ceiling' },
      ambiguous: false,
      total: 1,
    });
    expect(r.matches[0]).toMatchObject({ match: 'partial', area: 'Kitchen' }); // area of its device
  });

  test('aliases match (read with get_entries; the registry list carries none)', async () => {
    await using t = await tool();
    const big = await find(t, { query: 'Big Lamp' });
    expect(big.resolved?.entity_id).toBe('light.living_room');
    expect(big.matches[0]).toMatchObject({ match: 'alias', aliases: ['big lamp'] });
    const reading = await find(t, { query: 'my reading light' });
    expect(reading.resolved?.entity_id).toBe('light.bed');
    expect(ha.wsMessages.map((m) => m.type)).toContain('config/entity_registry/get_entries');
  });

  test.each([
    ['the café lights', 'light.cafe'],
    ['CAFE LIGHTS', 'light.cafe'],
    ['kids room', 'switch.kids_room'],
    ['kitchen_counter', 'light.kitchen_counter'],
    ['light.kitchen_counter', 'light.kitchen_counter'],
    ['living room lamp', 'light.living_room'],
    ['livingroom lamp', 'light.living_room'],
  ])('%j resolves %s exactly', async (query, entity) => {
    await using t = await tool();
    const r = await find(t, { query });
    expect(r.resolved?.entity_id).toBe(entity);
    expect(r.matches[0]).toMatchObject({ entity_id: entity, match: 'exact' });
  });

  test('no match: empty, nothing resolved, not ambiguous', async () => {
    await using t = await tool();
    const r = await find(t, { query: 'garage door' });
    expect(r).toEqual({ matches: [], resolved: null, ambiguous: false, total: 0 });
  });
});

describe('ha_entities: filters and listing', () => {
  test("area by name lists its entities, its devices' included", async () => {
    await using t = await tool();
    const r = await find(t, { area: 'kitchen', domain: 'light' });
    expect(ids(r)).toEqual(['light.kitchen_ceiling', 'light.kitchen_counter', 'light.kitchen']);
    expect(r.matches.every((m) => m.match === 'listed' && m.area === 'Kitchen')).toBe(true);
    expect(r).toMatchObject({ resolved: null, ambiguous: true, total: 3 });
  });

  test('area by alias, and a single entity in an area resolves', async () => {
    await using t = await tool();
    const lounge = await find(t, { area: 'Lounge' });
    expect(ids(lounge)).toEqual(['light.living_room']);
    expect(lounge.resolved?.entity_id).toBe('light.living_room');
    const bedroom = await find(t, { area: 'bedroom', query: 'light' });
    expect(bedroom.resolved?.entity_id).toBe('light.bed');
  });

  test('an unknown area is invalid_input naming the nearest and listing the areas', async () => {
    await using t = await tool();
    const err = await rejectionOf(t.call({ area: 'kitchn' }));
    seen.push(err);
    expect(err).toMatchObject({ code: 'invalid_input' });
    expect(err.message).toBe(
      "Home Assistant has no area 'kitchn'; did you mean Kitchen? areas: Bedroom, Kitchen, Living Room",
    );
  });

  test('domain alone lists that domain', async () => {
    await using t = await tool();
    const r = await find(t, { domain: 'switch' });
    expect(ids(r)).toEqual(['switch.kids_room', 'switch.kitchen_fan']); // by name: Kid's, Kitchen
    expect(r).toMatchObject({ ambiguous: true, total: 2 });
  });

  test('no input lists everything up to the limit; total counts all', async () => {
    await using t = await tool();
    const all = await find(t, {});
    expect(all.total).toBe(HOME.length);
    expect(all.matches).toHaveLength(HOME.length);
    const two = await find(t, { limit: 2 });
    expect(two.matches).toHaveLength(2);
    expect(two.total).toBe(HOME.length);
  });

  test.each([
    [{ query: 'x'.repeat(201) }],
    [{ limit: 0 }],
    [{ limit: 101 }],
    [{ domain: 'Light' }],
    [{ query: 'kitchen', entity_id: 'light.kitchen' }],
  ])('%j is refused by the schema', async (input) => {
    await using t = await tool();
    expect(t.accepts(input)).toBe(false);
  });
});

describe('ha_entities: caching and degradation', () => {
  test('states are cached for their TTL, then read again', async () => {
    let now = 1_000_000;
    await using t = await tool({}, { statesTtlMs: 10_000, now: () => now });
    await find(t, { query: 'kitchen' });
    ha.addEntity({
      entity_id: 'light.garage',
      state: 'on',
      attributes: { friendly_name: 'Garage' },
    });
    now += 9_000;
    expect((await find(t, { query: 'garage' })).total).toBe(0);
    expect(ha.seen('GET', '/api/states')).toHaveLength(1);
    now += 2_000;
    expect((await find(t, { query: 'garage' })).resolved?.entity_id).toBe('light.garage');
    expect(ha.seen('GET', '/api/states')).toHaveLength(2);
  });

  test('unreachable registries: names and ids still work, with a warning; area filters fail', async () => {
    await ha.close();
    await home({ registry: 'refuse' });
    await using t = await tool();
    const r = await find(t, { query: 'kitchen light', domain: 'light' });
    expect(r.resolved?.entity_id).toBe('light.kitchen');
    expect(r.matches[0]?.area).toBeUndefined();
    expect(r.warning).toMatch(
      /areas and aliases are unavailable \(the backend failed: cannot open Home Assistant's WebSocket API/,
    );
    expect((await find(t, { query: 'big lamp' })).total).toBe(0);
    const err = await rejectionOf(t.call({ area: 'kitchen' }));
    seen.push(err);
    expect(err).toMatchObject({ code: 'backend_error' });
    expect(err.message).toMatch(/cannot filter by area/);
    // the failure is remembered: one attempt, not one per lookup
    expect(ha.seen('GET', '/api/websocket')).toHaveLength(1);
  });

  test('a registry that never answers is given up at the timeout', async () => {
    await ha.close();
    await home({ registry: 'hang' });
    await using t = await tool({ timeout_seconds: 1 });
    const r = await find(t, { query: 'kitchen light' });
    expect(r.resolved?.entity_id).toBe('light.kitchen');
    expect(r.warning).toMatch(/did not answer within 1000 ms/);
  });

  test('a Home Assistant without get_entries: areas work, aliases are said to be unavailable', async () => {
    await ha.close();
    await home({ registry: 'no_get_entries' });
    await using t = await tool();
    const r = await find(t, { area: 'living room' });
    expect(ids(r)).toEqual(['light.living_room']);
    expect(r.warning).toMatch(/aliases are unavailable/);
  });

  test('the token goes only into the WebSocket auth message', async () => {
    await using t = await tool();
    await find(t, { query: 'kitchen' });
    const withToken = ha.wsMessages.filter((m) => JSON.stringify(m).includes(FAKE_HA_TOKEN));
    expect(withToken).toEqual([{ type: 'auth', access_token: FAKE_HA_TOKEN }]);
    expect(ha.seen('GET', '/api/websocket')[0]?.url).toBe('/api/websocket');
  });

  test('a wrong token is not_configured naming CAESAR_HA__TOKEN', async () => {
    await using t = await tool({ token: 'nope-nope' });
    const err = await rejectionOf(t.call({ query: 'kitchen' }));
    seen.push(err);
    expect(err).toMatchObject({ code: 'not_configured' });
    expect(err.message).toContain('CAESAR_HA__TOKEN (ha.token)');
    expect(err.message).not.toContain('nope-nope');
  });
});
