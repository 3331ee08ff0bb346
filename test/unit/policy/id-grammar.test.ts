import { describe, expect, test } from 'vitest';
import { compilePolicy, PolicyLoadError } from '../../../src/policy/index.js';
import { engineOf, issuesOf, svc } from './helpers.js';

/**
 * Issue 11, finding 8: a deny rule for `switch.freezеr` (a Cyrillic е) loaded, could never
 * match, and left `switch.freezer` allowed. Home Assistant ids hold only a-z, 0-9 and _, so an
 * id with any other character is refused at load, naming the character, its code point and
 * where in the id it sits.
 */
const CYRILLIC_E = '\u0435';

describe('ids outside the Home Assistant grammar are refused at load', () => {
  test("the issue's deny rule: a Cyrillic е in an entity id", () => {
    const yaml = `allowed_services: [switch.turn_off]
denied_services:
  - service: switch.turn_off
    target:
      entity_id: [switch.freez${CYRILLIC_E}r]
`;
    let error: unknown;
    try {
      compilePolicy(yaml, { file: 'policy.yaml' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PolicyLoadError);
    const message = (error as Error).message;
    expect(message).toContain('policy.yaml:5:19: denied_services[0].target.entity_id[0]:');
    expect(message).toContain(`character 13 is "${CYRILLIC_E}" (U+0435)`);
    expect(message).toMatch(/a-z, 0-9 and _/);
  });

  test.each<[string, string, string, RegExp]>([
    [
      'a Cyrillic letter in a service id',
      `allowed_services: [switch.turn_${'\u043e'}ff]\n`,
      'allowed_services[0].service',
      /character 13 is "о" \(U\+043E\)/,
    ],
    [
      'a hyphen in a service id',
      'denied_services: [light.turn-on]\n',
      'denied_services[0].service',
      /character 11 is "-" \(U\+002D\)/,
    ],
    [
      'a zero-width space in an area id',
      'allowed_services:\n  - service: light.turn_on\n    target: {area_id: ["kit\u200bchen"]}\n',
      'allowed_services[0].target.area_id[0]',
      /character 4 is "\u200b" \(U\+200B\)/,
    ],
    [
      'a hyphen in a label id',
      'allowed_services:\n  - service: light.turn_on\n    target: {label_id: [night-lights]}\n',
      'allowed_services[0].target.label_id[0]',
      /character 6 is "-" \(U\+002D\)/,
    ],
    [
      'an entity id without a dot',
      'allowed_services:\n  - service: light.turn_on\n    target: {entity_id: [kitchen]}\n',
      'allowed_services[0].target.entity_id[0]',
      /expected an entity id domain\.object_id/,
    ],
    [
      'a Greek letter in a tool id',
      `allowed_tools: [calcul${'\u03b1'}tor]\n`,
      'allowed_tools[0].tool',
      /character 7 is "α" \(U\+03B1\)/,
    ],
    [
      'an astral character, counted as one character',
      'denied_tools: [web_\u{1d5ba}earch]\n',
      'denied_tools[0].tool',
      /character 5 is "\u{1d5ba}" \(U\+1D5BA\)/u,
    ],
  ])('%s', (_name, yaml, path, message) => {
    const issue = issuesOf(yaml).find((i) => i.path === path);
    expect(issue, JSON.stringify(issuesOf(yaml))).toBeDefined();
    expect(issue?.message).toMatch(message);
  });

  test('ids in the grammar still load: globs, all, device ids, upper case folded', () => {
    const { engine } = engineOf(`allowed_services:
  - service: "light.*"
    target:
      entity_id: [light.kitchen_2, "light.hall_*", all]
      device_id: [0d1f2e3a4b5c6d7e8f90a1b2c3d4e5f6]
      area_id: [Upstairs]
      floor_id: [ground_floor]
      label_id: ["night_?"]
`);
    expect(engine.evaluate(svc('light.turn_on', { area_id: 'upstairs' })).outcome).toBe('allow');
  });

  test('the fixed deny rule protects the real freezer', () => {
    const { engine } = engineOf(`allowed_services: [switch.turn_off]
denied_services:
  - service: switch.turn_off
    target: {entity_id: [switch.freezer]}
`);
    expect(engine.evaluate(svc('switch.turn_off', { entity_id: 'switch.freezer' })).outcome).toBe(
      'deny',
    );
  });
});
