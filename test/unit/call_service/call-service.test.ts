import { describe, expect, test } from 'vitest';
import { InvalidInputError, CallServiceInputSchema } from '../../../src/legion/index.js';
import { callServiceTool } from '../../../workers/call_service/index.js';
import {
  describeEntity,
  expectedState,
  summarise,
  type Observed,
} from '../../../workers/call_service/summary.js';
import { prepareCall } from '../../../workers/call_service/targets.js';

const prepare = (input: unknown) => prepareCall(CallServiceInputSchema.parse(input));

describe('the call_service spec', () => {
  test('declares what the brief asks of it', () => {
    expect(callServiceTool.spec).toMatchObject({
      name: 'call_service',
      version: '1.0.0',
      tags: ['tool', 'home', 'home_assistant', 'network'],
      annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
      execution_locality: 'lan',
      resource_requirements: { cpu: 'low', memory_mb: 64, network: true },
      input_schema: {
        type: 'object',
        additionalProperties: false,
        required: ['domain', 'service'],
      },
    });
    expect(Object.keys(callServiceTool.spec.input_schema.properties as object).sort()).toEqual([
      'data',
      'domain',
      'return_response',
      'service',
      'target',
    ]);
    expect(callServiceTool.configSection).toBe('ha');
  });
});

describe('prepareCall', () => {
  test('merges target and target-like data keys as the policy reads them', () => {
    const call = prepare({
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: ' Light.A , light.b', area_id: 'Kitchen' },
      data: { entity_id: ['light.a', 'light.c'], brightness_pct: 30 },
    });
    expect(call.body).toEqual({
      brightness_pct: 30,
      entity_id: ['light.a', 'light.b', 'light.c'],
      area_id: ['kitchen'],
    });
    expect(call.entityIds).toEqual(['light.a', 'light.b', 'light.c']);
    expect(call.entitiesOnly).toBe(false);
    expect(call.key).toBe('light.turn_on');
  });

  test('only entity targets are checkable; "all" is not', () => {
    expect(
      prepare({ domain: 'light', service: 'turn_on', target: { entity_id: 'light.a' } })
        .entitiesOnly,
    ).toBe(true);
    const all = prepare({ domain: 'light', service: 'turn_off', target: { entity_id: 'all' } });
    expect(all).toMatchObject({ entitiesOnly: false, entityIds: [] });
    expect(prepare({ domain: 'script', service: 'turn_on' })).toMatchObject({
      entitiesOnly: false,
      body: {},
    });
  });

  test.each([
    [{ target: { entity_id: 'Kitchen Light' } }, /'kitchen light' is not an entity id/],
    [{ data: { entity_id: 5 } }, /data.entity_id must be an id or a list of ids/],
    [{ data: { area_id: [true] } }, /data.area_id must be an id or a list of ids/],
  ])('%j is refused', (extra, message) => {
    const input = { domain: 'light', service: 'turn_on', ...extra };
    expect(() => prepare(input)).toThrow(InvalidInputError);
    expect(() => prepare(input)).toThrow(message);
  });
});

describe('expected states', () => {
  test.each([
    ['light', 'turn_on', 'light.a', 'off', 'on'],
    ['light', 'turn_off', 'light.a', 'on', 'off'],
    ['switch', 'toggle', 'switch.a', 'off', 'on'],
    ['switch', 'toggle', 'switch.a', 'on', 'off'],
    ['switch', 'toggle', 'switch.a', 'unavailable', undefined],
    ['lock', 'unlock', 'lock.a', 'locked', 'unlocked'],
    ['cover', 'close_cover', 'cover.a', 'open', 'closed'],
    ['homeassistant', 'turn_on', 'fan.a', 'off', 'on'],
    ['homeassistant', 'turn_on', 'scene.a', 'x', undefined],
    ['scene', 'turn_on', 'scene.a', 'x', undefined],
    ['media_player', 'turn_on', 'media_player.a', 'off', undefined],
  ])('%s.%s on %s from %s -> %s', (domain, service, id, before, expected) => {
    expect(expectedState(domain, service, id, before)).toBe(expected);
  });
});

describe('summary wording', () => {
  const e = (over: Partial<Observed>): Observed => ({
    entity_id: 'light.kitchen',
    name: 'Kitchen Light',
    before: 'off',
    after: 'on',
    changed: true,
    ...over,
  });

  test.each([
    [e({}), 'Kitchen Light: off -> on'],
    [
      e({ before: 'on', after: 'on', changed: false, expected: 'on' }),
      'Kitchen Light was already on',
    ],
    [e({ after: 'off', changed: false, expected: 'on' }), 'Kitchen Light stayed off'],
    [e({ after: 'off', changed: false }), 'Kitchen Light stayed off'],
    [
      e({ before: 'on', after: 'on', changed: true, expected: 'on' }),
      'Kitchen Light stayed on (its attributes changed)',
    ],
    [e({ after: null, changed: false }), 'Kitchen Light was off and could not be read back'],
    [e({ before: null }), 'Kitchen Light: now on'],
    [e({ name: undefined }), 'light.kitchen: off -> on'],
  ])('%j -> %s', (observed, text) => {
    expect(describeEntity(observed)).toBe(text);
  });

  test('a verified call is its entities; more than five are counted', () => {
    const many = Array.from({ length: 7 }, (_, i) =>
      e({ entity_id: `light.l${i}`, name: `L${i}` }),
    );
    expect(summarise('light.turn_on', many, { targets: '', verified: true })).toBe(
      'L0: off -> on; L1: off -> on; L2: off -> on; L3: off -> on; L4: off -> on; and 2 more.',
    );
  });

  test('an unverified call says what ran on what, and what Home Assistant reported', () => {
    expect(summarise('scene.turn_on', [], { targets: 'area kitchen', verified: false })).toBe(
      'scene.turn_on ran on area kitchen; Home Assistant reported no state change.',
    );
    expect(
      summarise('light.turn_on', [e({ before: null })], {
        targets: 'area kitchen',
        verified: false,
      }),
    ).toBe('light.turn_on ran on area kitchen; Home Assistant reported: Kitchen Light: now on.');
  });
});
