import { describe, expect, test } from 'vitest';
import { DEFAULT_DENY_RULE_ID } from '../../../src/policy/decision.js';
import { engineOf, issuesOf, tool } from './helpers.js';

// ADR 0093: Home Assistant is one tool with two actions; for one release a policy naming the
// two old tools means what it meant, and the service-call action is governed like call_service.

const SERVICE = {
  domain: 'light',
  service: 'turn_on',
  target: { entity_id: 'light.kitchen' },
};

const decided = (yaml: string, name: string, input: unknown = {}) => {
  const d = engineOf(yaml).engine.evaluate(tool(name, input), { action: true });
  return { outcome: d.outcome, rule: d.rule.id === DEFAULT_DENY_RULE_ID ? null : d.rule.id };
};

describe('the old names in a policy', () => {
  const OLD = `
allowed_tools:
  - tool: ha_entities
    id: lookup
allowed_services:
  - service: light.turn_on
    id: kitchen
    target:
      entity_id: [light.kitchen]
`;

  test.each(['ha_entities', 'home_assistant.entities'])(
    'allowed_tools: [ha_entities] grants the lookup under either name (%s)',
    (name) => {
      expect(decided(OLD, name)).toEqual({ outcome: 'allow', rule: 'lookup' });
    },
  );

  test.each(['call_service', 'home_assistant.call_service'])(
    'a service call under either name is judged by allowed_services (%s)',
    (name) => {
      expect(decided(OLD, name, SERVICE)).toEqual({ outcome: 'allow', rule: 'kitchen' });
      const porch = { ...SERVICE, target: { entity_id: 'light.porch' } };
      expect(decided(OLD, name, porch).outcome).toBe('deny');
    },
  );

  test("the new action's rules answer the old name too", () => {
    const NEW = 'allowed_tools:\n  - {tool: home_assistant, actions: [entities], id: lookup}\n';
    expect(decided(NEW, 'ha_entities')).toEqual({ outcome: 'allow', rule: 'lookup' });
    expect(decided(NEW, 'home_assistant.entities')).toEqual({ outcome: 'allow', rule: 'lookup' });
  });
});

describe('the kill switch of every service call', () => {
  const ALLOW = `
allowed_services:
  - service: light.turn_on
    target:
      entity_id: [light.kitchen]
`;
  test.each([
    ['call_service', 'denied_tools:\n  - {tool: call_service, id: off}\n'],
    ['the action', 'denied_tools:\n  - {tool: home_assistant.call_service, id: off}\n'],
    ['the whole tool', 'denied_tools:\n  - {tool: home_assistant, id: off}\n'],
    [
      'the action by actions:',
      'denied_tools:\n  - {tool: home_assistant, actions: [call_service], id: off}\n',
    ],
  ])('a bare deny of %s denies service calls under both names', (_what, deny) => {
    for (const name of ['call_service', 'home_assistant.call_service']) {
      expect(decided(ALLOW + deny, name, SERVICE)).toEqual({ outcome: 'deny', rule: 'off' });
    }
  });

  test('a deny of the lookup alone leaves service calls to allowed_services', () => {
    const deny = 'denied_tools:\n  - {tool: home_assistant, actions: [entities], id: no_lookup}\n';
    expect(decided(ALLOW + deny, 'home_assistant.call_service', SERVICE).outcome).toBe('allow');
    expect(decided(ALLOW + deny, 'home_assistant.entities')).toEqual({
      outcome: 'deny',
      rule: 'no_lookup',
    });
  });

  test('a tool-wide allow of home_assistant grants the lookup, never a service call', () => {
    const wide = 'allowed_tools:\n  - {tool: home_assistant, id: ha}\n';
    expect(decided(wide, 'home_assistant.entities')).toEqual({ outcome: 'allow', rule: 'ha' });
    expect(decided(wide, 'home_assistant.call_service', SERVICE).outcome).toBe('deny');
  });
});

describe('an allow rule cannot name the service call', () => {
  test.each([
    [
      'home_assistant.call_service',
      'allowed_tools:\n  - home_assistant.call_service\n',
      /allowed_tools\[0\]\.tool: home_assistant\.call_service is governed by allowed_services/,
    ],
    [
      'actions: [call_service]',
      'allowed_tools:\n  - {tool: home_assistant, actions: [entities, call_service]}\n',
      /allowed_tools\[0\]\.actions: home_assistant\.call_service is governed by allowed_services/,
    ],
    [
      'call_service',
      'allowed_tools:\n  - call_service\n',
      /allowed_tools\[0\]\.tool: call_service is governed by allowed_services/,
    ],
  ])('%s in allowed_tools is a load error naming allowed_services', (_what, yaml, message) => {
    const issues = issuesOf(yaml).map((i) => `${i.path}: ${i.message}`);
    expect(issues.join('\n')).toMatch(message);
  });
});
