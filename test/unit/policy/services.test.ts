import { describe, expect, test } from 'vitest';
import { type ToolCall } from '../../../src/policy/index.js';
import { DEFAULT_DENY_RULE_ID, type DecisionOutcome } from '../../../src/policy/decision.js';
import { engineOf, svc, tool } from './helpers.js';

const POLICY = `
version: 1
allowed_services:
  - light.turn_on
  - service: light.turn_off
    id: off-listed
    target:
      entity_id: [light.kitchen, light.hall_*]
  - service: switch.turn_on
    target: {device_id: dev123}
  - service: switch.turn_off
    target: {area_id: [garage]}
  - service: fan.turn_on
    target: {floor_id: ground}
  - service: fan.turn_off
    target: {label_id: [downstairs]}
  - service: media_player.*
    id: media
  - service: homeassistant.turn_off
    id: everything-off
    target: {entity_id: all}
  - service: scene.turn_on
    target: {entity_id: "scene.*"}
  - service: climate.set_temperature
    id: thermostat
    data:
      temperature: {min: 16, max: 24, required: true}
  - service: notify.phone
    id: notify
    data:
      message: {type: string, max_length: 20}
    additional_data: false
denied_services:
  - service: media_player.volume_set
    id: too-loud
    data: {volume_level: {min: 0.8}}
  - service: media_player.play_media
    id: kids-room
    target: {entity_id: media_player.kids_room}
`;

const { engine } = engineOf(POLICY);

describe('allowed_services constructs', () => {
  test.each<[string, ToolCall, DecisionOutcome, string | null]>([
    [
      'a bare service allows any target and data',
      svc('light.turn_on', { area_id: 'x' }, { rgb_color: [1, 2, 3] }),
      'allow',
      'allowed_services[0]',
    ],
    [
      'a bare service allows an untargeted call',
      svc('light.turn_on'),
      'allow',
      'allowed_services[0]',
    ],
    [
      'an unlisted service is denied by default',
      svc('light.toggle', { entity_id: 'light.kitchen' }),
      'deny',
      null,
    ],
    [
      'entity_id: an exact id is covered',
      svc('light.turn_off', { entity_id: 'light.kitchen' }),
      'allow',
      'off-listed',
    ],
    [
      'entity_id: a glob covers matching ids',
      svc('light.turn_off', { entity_id: ['light.hall_1', 'light.hall_upstairs'] }),
      'allow',
      'off-listed',
    ],
    [
      'entity_id: every id of a list must be covered',
      svc('light.turn_off', { entity_id: ['light.kitchen', 'light.bedroom'] }),
      'deny',
      null,
    ],
    [
      'entity_id: a glob does not cover a different prefix',
      svc('light.turn_off', { entity_id: 'light.hallway' }),
      'deny',
      null,
    ],
    [
      'entity_id: an untargeted call is not covered by a targeted rule',
      svc('light.turn_off'),
      'deny',
      null,
    ],
    [
      'entity_id: another selector kind is not covered',
      svc('light.turn_off', { area_id: 'kitchen' }),
      'deny',
      null,
    ],
    [
      'entity_id: all is not covered by globs',
      svc('scene.turn_on', { entity_id: 'all' }),
      'deny',
      null,
    ],
    [
      'entity_id: scene.* covers scenes',
      svc('scene.turn_on', { entity_id: 'scene.movie' }),
      'allow',
      'allowed_services[8]',
    ],
    [
      'entity_id: a literal all covers all',
      svc('homeassistant.turn_off', { entity_id: 'all' }),
      'allow',
      'everything-off',
    ],
    [
      'device_id is covered',
      svc('switch.turn_on', { device_id: 'dev123' }),
      'allow',
      'allowed_services[2]',
    ],
    [
      'device_id: other devices are not',
      svc('switch.turn_on', { device_id: 'dev999' }),
      'deny',
      null,
    ],
    [
      'area_id is covered',
      svc('switch.turn_off', { area_id: 'garage' }),
      'allow',
      'allowed_services[3]',
    ],
    [
      'area_id: an entity in some area is not',
      svc('switch.turn_off', { entity_id: 'switch.garage_door' }),
      'deny',
      null,
    ],
    [
      'floor_id is covered',
      svc('fan.turn_on', { floor_id: 'ground' }),
      'allow',
      'allowed_services[4]',
    ],
    [
      'label_id is covered',
      svc('fan.turn_off', { label_id: ['downstairs'] }),
      'allow',
      'allowed_services[5]',
    ],
    [
      'label_id: mixed with an unlisted kind is not',
      svc('fan.turn_off', { label_id: 'downstairs', device_id: 'd' }),
      'deny',
      null,
    ],
    [
      'target-like keys inside data count as targets (covered)',
      svc('light.turn_off', undefined, { entity_id: 'light.kitchen' }),
      'allow',
      'off-listed',
    ],
    [
      'target-like keys inside data count as targets (not covered)',
      svc('light.turn_off', { entity_id: 'light.kitchen' }, { entity_id: 'light.bedroom' }),
      'deny',
      null,
    ],
    [
      'a service glob matches the domain',
      svc('media_player.media_pause', { entity_id: 'media_player.tv' }),
      'allow',
      'media',
    ],
    [
      'data: a value in range is allowed',
      svc('climate.set_temperature', { entity_id: 'climate.x' }, { temperature: 21.5 }),
      'allow',
      'thermostat',
    ],
    [
      'data: a value out of range is denied',
      svc('climate.set_temperature', undefined, { temperature: 25 }),
      'deny',
      null,
    ],
    [
      'data: a numeric string is not a number',
      svc('climate.set_temperature', undefined, { temperature: '20' }),
      'deny',
      null,
    ],
    [
      'data: a required key must be present',
      svc('climate.set_temperature', undefined, { hvac_mode: 'heat' }),
      'deny',
      null,
    ],
    [
      'data: unlisted keys pass by default',
      svc('climate.set_temperature', undefined, { temperature: 20, hvac_mode: 'heat' }),
      'allow',
      'thermostat',
    ],
    [
      'additional_data: false refuses unlisted keys',
      svc('notify.phone', undefined, { message: 'hi', title: 'x' }),
      'deny',
      null,
    ],
    [
      'additional_data: false allows listed keys',
      svc('notify.phone', undefined, { message: 'hi' }),
      'allow',
      'notify',
    ],
    [
      'additional_data: false still lets target keys through data',
      svc('notify.phone', undefined, { message: 'hi', entity_id: 'notify.x' }),
      'allow',
      'notify',
    ],
    ['data: max_length', svc('notify.phone', undefined, { message: 'x'.repeat(21) }), 'deny', null],
  ])('%s', (_name, call, outcome, rule) => {
    const d = engine.evaluate(call);
    expect({
      outcome: d.outcome,
      rule: d.rule.id === DEFAULT_DENY_RULE_ID ? null : d.rule.id,
    }).toEqual({ outcome, rule });
    expect(d.allowed).toBe(outcome === 'allow');
  });
});

describe('denied_services', () => {
  test.each<[string, ToolCall, DecisionOutcome, string | null]>([
    [
      'a deny with data matches when the value satisfies it',
      svc('media_player.volume_set', { entity_id: 'media_player.tv' }, { volume_level: 0.9 }),
      'deny',
      'too-loud',
    ],
    [
      'a deny with data does not match other values',
      svc('media_player.volume_set', { entity_id: 'media_player.tv' }, { volume_level: 0.3 }),
      'allow',
      'media',
    ],
    [
      'a deny with data does not match when the key is absent',
      svc('media_player.volume_set', { entity_id: 'media_player.tv' }),
      'allow',
      'media',
    ],
    [
      'a deny with a target matches the named entity',
      svc('media_player.play_media', { entity_id: 'media_player.kids_room' }),
      'deny',
      'kids-room',
    ],
    [
      'a deny with a target matches it inside a list',
      svc('media_player.play_media', { entity_id: ['media_player.tv', 'media_player.kids_room'] }),
      'deny',
      'kids-room',
    ],
    [
      'a deny with a target does not match other entities',
      svc('media_player.play_media', { entity_id: 'media_player.tv' }),
      'allow',
      'media',
    ],
    [
      'a deny with a target matches a selector kind it cannot rule out',
      svc('media_player.play_media', { area_id: 'upstairs' }),
      'deny',
      'kids-room',
    ],
    [
      'a deny with a target matches an untargeted call',
      svc('media_player.play_media'),
      'deny',
      'kids-room',
    ],
    [
      'a deny with a target matches entity_id all',
      svc('media_player.play_media', { entity_id: 'all' }),
      'deny',
      'kids-room',
    ],
  ])('%s', (_name, call, outcome, rule) => {
    const d = engine.evaluate(call);
    expect({
      outcome: d.outcome,
      rule: d.rule.id === DEFAULT_DENY_RULE_ID ? null : d.rule.id,
    }).toEqual({ outcome, rule });
  });

  test('deny wins over an allow that appears earlier in the file', () => {
    const { engine: e } = engineOf(
      'allowed_services: [lock.unlock]\ndenied_services: [lock.unlock]',
    );
    expect(e.evaluate(svc('lock.unlock', { entity_id: 'lock.front' })).rule?.id).toBe(
      'denied_services[0]',
    );
  });

  test('a deny glob covers every service of its domain', () => {
    const { engine: e } = engineOf(
      'allowed_services: [lock.unlock, lock.lock, light.turn_on]\ndenied_services: ["lock.*"]',
    );
    expect(e.evaluate(svc('lock.unlock')).outcome).toBe('deny');
    expect(e.evaluate(svc('lock.open')).outcome).toBe('deny');
    expect(e.evaluate(svc('light.turn_on')).outcome).toBe('allow');
  });

  test('a bare call_service in denied_tools denies every service call', () => {
    const { engine: e } = engineOf(
      'allowed_services: [light.turn_on]\ndenied_tools: [call_service]',
    );
    const d = e.evaluate(svc('light.turn_on', { entity_id: 'light.x' }));
    expect(d).toMatchObject({ outcome: 'deny', rule: { id: 'denied_tools[0]' } });
    expect(e.evaluate(tool('call_service', { domain: 'light', service: 'turn_on' })).outcome).toBe(
      'deny',
    );
  });
});

describe('evaluation order and reasons', () => {
  test('the first allow rule in file order that accepts the call decides', () => {
    const { engine: e } = engineOf(`
allowed_services:
  - service: light.turn_on
    id: narrow
    target: {entity_id: light.kitchen}
  - service: "light.*"
    id: broad
`);
    expect(e.evaluate(svc('light.turn_on', { entity_id: 'light.kitchen' })).rule?.id).toBe(
      'narrow',
    );
    expect(e.evaluate(svc('light.turn_on', { entity_id: 'light.bedroom' })).rule?.id).toBe('broad');
    expect(e.evaluate(svc('light.toggle', { entity_id: 'light.bedroom' })).rule?.id).toBe('broad');
  });

  test('a glob rule listed before an exact rule is tried first', () => {
    const { engine: e } = engineOf(`
allowed_services:
  - service: "light.*"
    id: glob-first
    confirm: true
  - service: light.turn_on
    id: exact-second
`);
    expect(e.evaluate(svc('light.turn_on')).rule?.id).toBe('glob-first');
  });

  test('the default deny names the service and the file to edit', () => {
    const d = engine.evaluate(svc('vacuum.start'));
    expect(d.reason).toBe(
      'service \'vacuum.start\' is not on the allow-list: no allowed_services entry in policy.yaml matches it; to allow it, add "- vacuum.start" under allowed_services there',
    );
    expect(d.rule).toEqual({
      id: DEFAULT_DENY_RULE_ID,
      file: 'policy.yaml',
      line: 3,
      column: 1,
      list: null,
      index: null,
    });
  });

  test('a rejection names the rule, its position and what failed', () => {
    const d = engine.evaluate(svc('light.turn_off', { entity_id: 'light.bedroom' }));
    expect(d.reason).toBe(
      `service 'light.turn_off' is not allowed: off-listed (policy.yaml:5:5 in policy sha256 ${engine.policy.sha256.slice(0, 12)}) rejects it: target entity_id "light.bedroom" is not allowed by off-listed`,
    );
  });

  test('a deny reason names the matched rule and its position', () => {
    const d = engine.evaluate(
      svc('media_player.play_media', { entity_id: 'media_player.kids_room' }),
    );
    expect(d.reason).toBe(
      `service 'media_player.play_media' is denied by kids-room (policy.yaml:37:5 in policy sha256 ${engine.policy.sha256.slice(0, 12)})`,
    );
    expect(d.rule).toMatchObject({
      id: 'kids-room',
      list: 'denied_services',
      index: 1,
      file: 'policy.yaml',
      line: 37,
      column: 5,
    });
  });

  test('domain and service are matched case-insensitively and trimmed, as Home Assistant does', () => {
    expect(engine.evaluate(svc(' Light .TURN_ON')).outcome).toBe('allow');
  });
});
