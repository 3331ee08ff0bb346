import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compilePolicy, loadPolicyFile, PolicyEngine } from '../../../src/policy/index.js';
import { engineOf, policyOf, svc, tool } from './helpers.js';

const examples = readdirSync('policy/examples')
  .filter((f) => f.endsWith('.yaml') && !f.endsWith('.cases.yaml'))
  .map((f) => join('policy/examples', f));

describe('policy files in the repository', () => {
  test('the default policy loads without warnings and allows the read-only shipped tools', async () => {
    const policy = await loadPolicyFile('policy/policy.yaml');
    expect(policy.warnings).toEqual([]);
    const engine = new PolicyEngine(policy);
    for (const call of [
      tool('calculator', { expression: '17 * 23' }),
      tool('web_search', { query: 'x' }),
      tool('calendar_read', { start: '2026-03-01', end: '2026-03-08' }),
      tool('ha_entities', { query: 'kitchen', domain: 'light' }),
    ]) {
      expect(engine.evaluate(call).allowed, JSON.stringify(call)).toBe(true);
    }
  });

  test.each([
    svc('lock.unlock', { entity_id: 'lock.front_door' }),
    svc('alarm_control_panel.alarm_disarm', { entity_id: 'alarm_control_panel.home' }),
    svc('light.turn_on', { entity_id: 'light.kitchen' }),
    tool('shell', { command: 'x' }),
    tool('call_service', {
      domain: 'switch',
      service: 'turn_off',
      target: { entity_id: 'switch.x' },
    }),
  ])('the default policy denies %j: no action is granted', async (call) => {
    const engine = new PolicyEngine(await loadPolicyFile('policy/policy.yaml'));
    expect(engine.evaluate(call).allowed).toBe(false);
  });

  test.each(examples)('example %s loads without warnings', async (file) => {
    const policy = await loadPolicyFile(file);
    expect(policy.warnings).toEqual([]);
    expect(policy.rules.length).toBeGreaterThan(0);
  });
});

describe('version 1 grammar', () => {
  test('the design document example loads unchanged', () => {
    const { engine } = engineOf(`
version: 1
allowed_services:              # Home Assistant calls, matched as domain.service
  - light.turn_on              # bare: any target/data
  - service: light.turn_off
    target:
      entity_id: [light.kitchen]
allowed_tools:                 # every other tool, matched by tool id
  - tool: calculator           # bare: fully permissive
  - tool: web_search
    input:
      domain_allowlist: [en.wikipedia.org]
`);
    expect(
      engine.evaluate(svc('light.turn_on', { area_id: 'anywhere' }, { brightness: 255 })).allowed,
    ).toBe(true);
    expect(engine.evaluate(svc('light.turn_off', { entity_id: 'light.kitchen' })).allowed).toBe(
      true,
    );
    expect(engine.evaluate(svc('light.turn_off', { entity_id: 'light.bedroom' })).allowed).toBe(
      false,
    );
    expect(engine.evaluate(tool('calculator', { anything: [1, 2] })).allowed).toBe(true);
    expect(engine.evaluate(tool('web_search', { query: 'x' })).obligations).toEqual([
      { type: 'filter_result_urls', allow_domains: ['en.wikipedia.org'] },
    ]);
  });

  test('the issue example loads unchanged and means what it says', () => {
    const { engine } = engineOf(`
version: 1
allowed_services:              # Home Assistant calls (the call_service tool), matched as domain.service
  - light.turn_on              # bare string: any target and data
  - service: light.turn_off    # object form
    target:
      entity_id: [light.kitchen, light.living_room]
allowed_tools:                 # every other tool, matched by tool id
  - calculator                 # bare string
  - tool: web_search           # object form
    input:
      domain_allowlist: [en.wikipedia.org, search.example.com]
`);
    expect(
      engine.evaluate(svc('light.turn_on', { area_id: 'x' }, { rgb: [1, 2, 3] })).outcome,
    ).toBe('allow');
    expect(engine.evaluate(svc('light.turn_off', { entity_id: 'light.living_room' })).outcome).toBe(
      'allow',
    );
    expect(engine.evaluate(svc('light.turn_off', { area_id: 'kitchen' })).outcome).toBe('deny');
    expect(engine.evaluate(tool('calculator', { expression: '1' })).outcome).toBe('allow');
    expect(engine.evaluate(tool('web_search', { query: 'x' })).obligations).toEqual([
      {
        type: 'filter_result_urls',
        allow_domains: ['en.wikipedia.org', 'search.example.com'],
      },
    ]);
    expect(engine.evaluate(tool('shell')).reason).toMatch(/^tool 'shell' is not on the allow-list/);
  });

  test('several rules for the same id combine with OR', () => {
    const { engine } = engineOf(`
allowed_services:
  - service: light.turn_on
    target: {entity_id: light.kitchen}
  - service: light.turn_on
    target: {area_id: upstairs}
`);
    expect(engine.evaluate(svc('light.turn_on', { entity_id: 'light.kitchen' })).outcome).toBe(
      'allow',
    );
    expect(engine.evaluate(svc('light.turn_on', { area_id: 'upstairs' })).outcome).toBe('allow');
    expect(engine.evaluate(svc('light.turn_on', { area_id: 'cellar' })).outcome).toBe('deny');
  });

  test.each([
    ['10/minute', 10, 60_000],
    ['10/1m', 10, 60_000],
    ['3/hour', 3, 3_600_000],
    ['5 / 30s', 5, 30_000],
    ['2/day', 2, 86_400_000],
    ['{calls: 4, per: 2 hours}', 4, 7_200_000],
  ])('rate_limit: %s', (text, calls, windowMs) => {
    const policy = policyOf(`allowed_tools:\n  - {tool: t, rate_limit: ${text}}\n`);
    expect(policy.rateSlots).toEqual([expect.objectContaining({ calls, windowMs })]);
  });

  test.each([
    ['version omitted', 'allowed_tools: [calculator]'],
    [
      'empty lists written as bare keys',
      'version: 1\nallowed_tools:\n  - calculator\nallowed_services:\ndenied_services:\ndenied_tools:\n',
    ],
    ['tool shorthand string', 'version: 1\nallowed_tools: [calculator]'],
  ])('accepts %s', (_name, yaml) => {
    expect(() => policyOf(yaml)).not.toThrow();
  });

  test('a version-1 file that denies everything is just `version: 1`', () => {
    const { engine } = engineOf('version: 1\n');
    expect(engine.evaluate(tool('calculator')).outcome).toBe('deny');
  });

  test('rule ids default to list[index] and an explicit id replaces it', () => {
    const policy = policyOf(
      'allowed_tools:\n  - calculator\n  - tool: web_search\n    id: search\n',
    );
    expect(policy.rules.map((r) => r.ref.id)).toEqual(['allowed_tools[0]', 'search']);
    expect(policy.rules[1]?.ref).toMatchObject({
      list: 'allowed_tools',
      index: 1,
      line: 3,
      column: 5,
    });
  });

  test('policy_sha256 is the SHA-256 of the text and is echoed by every decision', () => {
    const text = 'allowed_tools: [calculator]\n';
    const policy = compilePolicy(text);
    expect(policy.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    const engine = new PolicyEngine(policy);
    expect(engine.evaluate(tool('calculator')).policy_sha256).toBe(policy.sha256);
    expect(engine.evaluate(tool('nope')).policy_sha256).toBe(policy.sha256);
  });

  test('decision_id is echoed from the context, and null without one', () => {
    const { engine } = engineOf('allowed_tools: [calculator]');
    expect(engine.evaluate(tool('calculator'), { decisionId: 'd-1' }).decision_id).toBe('d-1');
    expect(engine.evaluate(tool('other'), { decisionId: 'd-2' }).decision_id).toBe('d-2');
    expect(engine.evaluate(tool('calculator')).decision_id).toBeNull();
  });
});

describe('validation reuse across reloads', () => {
  test('a rule accepted once is still refused once it is edited into something invalid', () => {
    expect(() => policyOf('allowed_tools:\n  - {tool: t, rate_limit: 5/1m}\n')).not.toThrow();
    expect(() => policyOf('allowed_tools:\n  - {tool: t, rate_limit: 0/1m}\n')).toThrow(/calls/);
    expect(() => policyOf('allowed_tools:\n  - {tool: t, rate_limit: 5/1m}\n')).not.toThrow();
  });

  test('values whose JSON is ambiguous (null, NaN, Infinity) are each judged on their own', () => {
    const message = (yaml: string) => {
      try {
        policyOf(yaml);
        return 'loaded';
      } catch (err) {
        return (err as Error).message;
      }
    };
    const nul = message('allowed_tools:\n  - {tool: t, input: {x: ~}}\n');
    const nan = message('allowed_tools:\n  - {tool: t, input: {x: .nan}}\n');
    expect(nul).toMatch(/empty constraint/);
    expect(nan).not.toMatch(/empty constraint/);
    expect(nan).not.toBe('loaded');
  });
});

describe('warnings', () => {
  test.each([
    [
      'an allow rule shadowed by an unconditional deny',
      'allowed_tools: [calculator]\ndenied_tools: [calculator]',
      'allowed_tools[0]',
      'never allows calculator: denied_tools[0] denies every such call',
    ],
    [
      'an allow rule after an unconditional allow for the same service',
      'allowed_services:\n  - light.turn_on\n  - service: light.turn_on\n    target: {entity_id: light.x}',
      'allowed_services[1]',
      'never used for light.turn_on: allowed_services[0] already allows every such call',
    ],
    [
      'a service glob over every domain',
      'allowed_services: ["*.turn_on"]',
      'allowed_services[0]',
      '*.turn_on allows services of every domain',
    ],
    [
      'a service allow under a call_service kill switch',
      'allowed_services: [light.turn_on]\ndenied_tools: [call_service]',
      'allowed_services[0]',
      'never allows light.turn_on: denied_tools[0] denies every such call',
    ],
  ])('warns about %s', (_name, yaml, path, message) => {
    expect(policyOf(yaml).warnings).toContainEqual(expect.objectContaining({ path, message }));
  });
});
