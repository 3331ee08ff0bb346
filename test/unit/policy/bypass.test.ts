import { describe, expect, test } from 'vitest';
import type { ToolCall } from '../../../src/policy/index.js';
import { engineOf, svc, tool } from './helpers.js';

const POLICY = `
allowed_services:
  - service: light.turn_on
    target: {entity_id: [light.kitchen, "light.hall_*"]}
  - switch.turn_off
  - climate.set_temperature
  - lock.lock
allowed_tools: [calculator]
denied_services:
  - service: switch.turn_off
    id: keep-fridge-on
    target: {entity_id: [switch.fridge]}
  - service: climate.set_temperature
    id: not-too-hot
    data: {temperature: {min: 30}}
  - lock.unlock
`;

const { engine } = engineOf(POLICY);

describe('calls that try to slip past the policy are denied', () => {
  test.each<[string, ToolCall]>([
    ['service name in upper case', svc('lock.UNLOCK', { entity_id: 'lock.front' })],
    ['service name padded with spaces', svc(' lock . unlock ', { entity_id: 'lock.front' })],
    [
      'a comma list smuggling an uncovered entity',
      svc('light.turn_on', { entity_id: 'light.kitchen,lock.front_door' }),
    ],
    [
      'a comma list with spaces',
      svc('light.turn_on', { entity_id: 'light.kitchen, light.bedroom' }),
    ],
    [
      'a glob-matching id with a smuggled id after a comma',
      svc('light.turn_on', { entity_id: 'light.hall_x,switch.fridge' }),
    ],
    [
      'a list element holding a comma list',
      svc('light.turn_on', { entity_id: ['light.kitchen', 'light.hall_1 , light.bedroom'] }),
    ],
    [
      'an uncovered entity in data next to a covered target',
      svc('light.turn_on', { entity_id: 'light.kitchen' }, { entity_id: 'light.bedroom' }),
    ],
    ['the denied entity in upper case', svc('switch.turn_off', { entity_id: 'SWITCH.FRIDGE' })],
    [
      'the denied entity padded with spaces',
      svc('switch.turn_off', { entity_id: '  switch.fridge ' }),
    ],
    [
      'the denied entity inside data instead of target',
      svc('switch.turn_off', undefined, { entity_id: 'switch.fridge' }),
    ],
    [
      'the denied entity hidden in a list',
      svc('switch.turn_off', { entity_id: ['switch.tv', 'switch.fridge'] }),
    ],
    [
      'the denied entity hidden in a comma string',
      svc('switch.turn_off', { entity_id: 'switch.tv,switch.fridge' }),
    ],
    ['entity_id all against a deny list', svc('switch.turn_off', { entity_id: 'all' })],
    ['entity_id ALL in upper case', svc('switch.turn_off', { entity_id: 'ALL' })],
    ['a device selector the deny cannot rule out', svc('switch.turn_off', { device_id: 'abc' })],
    ['an area selector the deny cannot rule out', svc('switch.turn_off', { area_id: 'kitchen' })],
    ['no target at all under a targeted deny', svc('switch.turn_off')],
    [
      'a numeric string over the deny bound',
      svc('climate.set_temperature', undefined, { temperature: '35' }),
    ],
    [
      'a padded numeric string',
      svc('climate.set_temperature', undefined, { temperature: ' 35.0 ' }),
    ],
    [
      'digits with an underscore (Python float reads 3_5 as 35)',
      svc('climate.set_temperature', undefined, { temperature: '3_5' }),
    ],
    ['infinity as a word', svc('climate.set_temperature', undefined, { temperature: 'Infinity' })],
    ['an exponent', svc('climate.set_temperature', undefined, { temperature: '3.5e1' })],
    [
      'a list with a high value',
      svc('climate.set_temperature', undefined, { temperature: [20, 35] }),
    ],
    [
      'an object where a number belongs',
      svc('climate.set_temperature', undefined, { temperature: { value: 35 } }),
    ],
    ['a non-string entity id', svc('light.turn_on', { entity_id: 42 })],
    ['nested lists of entity ids', svc('light.turn_on', { entity_id: [['light.kitchen']] })],
    ['a target that is a list', svc('light.turn_on', ['light.kitchen'])],
    [
      'an unknown target key',
      svc('light.turn_on', { entity_id: 'light.kitchen', ENTITY_ID: 'lock.x' }),
    ],
    [
      'data that is a string',
      svc('switch.turn_off', { entity_id: 'switch.tv' }, 'entity_id=switch.fridge'),
    ],
    ['a glob character in the service name', svc('lock.*', { entity_id: 'lock.front' })],
    ['a dot inside the service name', { domain: 'lock', service: 'unlock.x' }],
    [
      'a domain that is not a string',
      { domain: { toString: () => 'lock' }, service: 'lock' } as unknown as ToolCall,
    ],
    [
      'call_service in upper case (not a tool id)',
      tool('CALL_SERVICE', { domain: 'lock', service: 'unlock' }),
    ],
    [
      'call_service through the generic shape',
      tool('call_service', { domain: 'lock', service: 'unlock' }),
    ],
    ['a tool id with a trailing space', tool('calculator ', {})],
    ['a tool id that is an Object prototype key', tool('constructor', {})],
    ['a tool id of __proto__', tool('__proto__', {})],
    [
      'a tool field that is not a string',
      { tool: ['calculator'], input: {} } as unknown as ToolCall,
    ],
    ['null as a call', null as unknown as ToolCall],
  ])('%s', (_name, call) => {
    const d = engine.evaluate(call);
    expect(d.allowed).toBe(false);
    expect(d.outcome).toBe('deny');
  });

  test('the same calls written plainly are allowed, so the table above tests the bypass, not the rule', () => {
    expect(engine.evaluate(svc('lock.lock', { entity_id: 'lock.front' })).allowed).toBe(true);
    expect(
      engine.evaluate(svc('light.turn_on', { entity_id: 'light.kitchen,light.hall_2' })).allowed,
    ).toBe(true);
    expect(engine.evaluate(svc('switch.turn_off', { entity_id: 'switch.tv' })).allowed).toBe(true);
    expect(
      engine.evaluate(svc('climate.set_temperature', undefined, { temperature: '25' })).allowed,
    ).toBe(true);
    expect(engine.evaluate(tool('calculator', {})).allowed).toBe(true);
  });
});

/**
 * The bypasses the issue names, against a rule pinned to two lights. The reference engine read
 * only `target.entity_id`, so each "deny" row below was an allow there.
 */
describe('the named bypasses of a pinned rule', () => {
  const { engine: pinned } = engineOf(`
allowed_services:
  - service: light.turn_off
    target:
      entity_id: [light.kitchen, light.living_room]
  - service: light.turn_on
    target:
      entity_id: ["light.kitchen_*"]
      area_id: [upstairs]
  - light.toggle
  - service: homeassistant.turn_off
    target: {entity_id: all}
`);

  test.each<[string, ToolCall, 'allow' | 'deny']>([
    ['the pinned entity in target', svc('light.turn_off', { entity_id: 'light.kitchen' }), 'allow'],
    [
      'the pinned entity in data (as Home Assistant accepts it)',
      svc('light.turn_off', undefined, { entity_id: 'light.kitchen' }),
      'allow',
    ],
    [
      'data.entity_id naming an unpinned entity',
      svc('light.turn_off', undefined, { entity_id: 'light.bedroom' }),
      'deny',
    ],
    [
      'data.entity_id smuggled next to a pinned target',
      svc('light.turn_off', { entity_id: 'light.kitchen' }, { entity_id: 'light.bedroom' }),
      'deny',
    ],
    ['target.area_id instead of entities', svc('light.turn_off', { area_id: 'kitchen' }), 'deny'],
    ['data.area_id', svc('light.turn_off', undefined, { area_id: 'kitchen' }), 'deny'],
    ['target.device_id', svc('light.turn_off', { device_id: '0d1f2e3a' }), 'deny'],
    ['data.device_id', svc('light.turn_off', undefined, { device_id: '0d1f2e3a' }), 'deny'],
    ['target.floor_id', svc('light.turn_off', { floor_id: 'ground' }), 'deny'],
    ['target.label_id', svc('light.turn_off', { label_id: 'all_lights' }), 'deny'],
    [
      'a pinned entity plus an area',
      svc('light.turn_off', { entity_id: 'light.kitchen', area_id: 'cellar' }),
      'deny',
    ],
    ['entity_id: all against a pinned rule', svc('light.turn_off', { entity_id: 'all' }), 'deny'],
    ['entity_id: all in data', svc('light.turn_off', undefined, { entity_id: 'all' }), 'deny'],
    ['entity_id: all against a bare rule', svc('light.toggle', { entity_id: 'all' }), 'deny'],
    ['area_id: all against a bare rule', svc('light.toggle', { area_id: 'all' }), 'deny'],
    ['a bare rule allows any other target', svc('light.toggle', { area_id: 'cellar' }), 'allow'],
    [
      'entity_id: all where a rule says all',
      svc('homeassistant.turn_off', { entity_id: 'all' }),
      'allow',
    ],
    [
      'a rule that says all still pins the kind: area_id is not covered',
      svc('homeassistant.turn_off', { area_id: 'all' }),
      'deny',
    ],
    ['a glob-listed entity', svc('light.turn_on', { entity_id: 'light.kitchen_2' }), 'allow'],
    [
      'an entity outside the glob',
      svc('light.turn_on', { entity_id: 'light.kitchenette' }),
      'deny',
    ],
    ['the glob does not match all', svc('light.turn_on', { entity_id: 'all' }), 'deny'],
    ['a listed area', svc('light.turn_on', { area_id: 'upstairs' }), 'allow'],
    ['an unlisted area', svc('light.turn_on', { area_id: 'downstairs' }), 'deny'],
    [
      'the HA shape under its domain.service tool id',
      { tool: 'light.turn_off', input: { target: { entity_id: 'light.kitchen' } } },
      'allow',
    ],
    [
      'the tool-id shape with data.entity_id smuggled in',
      {
        tool: 'light.turn_off',
        input: { target: { entity_id: 'light.kitchen' }, data: { entity_id: 'light.bedroom' } },
      },
      'deny',
    ],
    [
      'the tool-id shape with its own domain and service in the input',
      {
        tool: 'light.turn_off',
        input: { domain: 'lock', service: 'unlock', target: { entity_id: 'light.kitchen' } },
      },
      'deny',
    ],
  ])('%s: %s', (_name, call, outcome) => {
    expect(pinned.evaluate(call).outcome).toBe(outcome);
  });

  test('a typo in a rule key (targets:) is a load error, never a permissive rule', () => {
    expect(() =>
      engineOf(
        'allowed_services:\n  - service: light.turn_off\n    targets: {entity_id: light.kitchen}\n',
      ),
    ).toThrow(/unknown key 'targets' \(did you mean 'target'\?\)/);
  });
});

/**
 * Issue 11, finding 2: the `call_service` tool form is exactly `{domain, service, target?,
 * data?, return_response?}`. A top-level `entity_id` next to an allowed target was allowed
 * (the fridge's deny rule never saw it) and reached the worker.
 */
describe('keys outside the call_service input shape are denied, naming the key', () => {
  const { engine: fridge } = engineOf(`
allowed_services:
  - service: switch.turn_off
    target: {entity_id: [switch.fan_1]}
denied_services:
  - service: switch.turn_off
    target: {entity_id: [switch.fridge]}
`);
  const fan = { domain: 'switch', service: 'turn_off', target: { entity_id: 'switch.fan_1' } };

  test.each<[string, Record<string, unknown>, string]>([
    [
      'a top-level entity_id next to an allowed target',
      { entity_id: 'switch.fridge' },
      'entity_id',
    ],
    ['a top-level area_id', { area_id: 'kitchen' }, 'area_id'],
    ['a service_data key (the old HA name for data)', { service_data: {} }, 'service_data'],
    ['a key in another case', { Target: { entity_id: 'switch.fridge' } }, 'Target'],
  ])('%s', (_name, extra, key) => {
    for (const call of [
      { tool: 'call_service', input: { ...fan, ...extra } },
      { ...fan, ...extra } as ToolCall,
    ]) {
      const d = fridge.evaluate(call);
      expect(d.outcome).toBe('deny');
      expect(d.reason).toContain(`"${key}"`);
      expect(d.reason).toMatch(/domain, service, target, data and return_response/);
    }
  });

  test('the exact shape is still allowed, with or without return_response', () => {
    expect(fridge.evaluate({ tool: 'call_service', input: fan }).outcome).toBe('allow');
    const asked = { ...fan, return_response: true };
    expect(fridge.evaluate({ tool: 'call_service', input: asked }).outcome).toBe('allow');
  });

  test('return_response that is not a boolean is denied, naming it', () => {
    const d = fridge.evaluate({ tool: 'call_service', input: { ...fan, return_response: 'yes' } });
    expect(d.outcome).toBe('deny');
    expect(d.reason).toContain('return_response');
  });
});
