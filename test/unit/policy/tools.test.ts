import { describe, expect, test } from 'vitest';
import { type ToolCall } from '../../../src/policy/index.js';
import { DEFAULT_DENY_RULE_ID, type DecisionOutcome } from '../../../src/policy/decision.js';
import { engineOf, tool } from './helpers.js';

const POLICY = `
allowed_tools:
  - calculator
  - tool: web_search
    id: search
    input:
      domain_allowlist: [en.wikipedia.org, "*.python.org"]
      query: {type: string, max_length: 50}
  - tool: calendar_read
    id: calendar
    input:
      days: {type: integer, min: 1, max: 31}
    additional_input: false
  - tool: notes
    input:
      options:
        fields:
          mode: [append, read]
denied_tools:
  - tool: web_search
    id: no-secrets
    input:
      query: {pattern: ".*password.*"}
  - tool: shell
`;

const { engine } = engineOf(POLICY);

describe('allowed_tools and denied_tools constructs', () => {
  test.each<[string, ToolCall, DecisionOutcome, string | null]>([
    [
      'a bare tool allows any input',
      tool('calculator', { expression: '2+2', extra: [1] }),
      'allow',
      'allowed_tools[0]',
    ],
    [
      'a bare tool allows a missing input',
      { tool: 'calculator', input: undefined },
      'allow',
      'allowed_tools[0]',
    ],
    [
      'an unlisted tool is denied by default',
      tool('file_write', { path: '/etc/passwd' }),
      'deny',
      null,
    ],
    [
      'a tool named only in denied_tools is denied by that rule',
      tool('shell', {}),
      'deny',
      'denied_tools[1]',
    ],
    [
      'input constraints accept a conforming input',
      tool('web_search', { query: 'rome' }),
      'allow',
      'search',
    ],
    [
      'input constraints refuse a too-long value',
      tool('web_search', { query: 'x'.repeat(51) }),
      'deny',
      null,
    ],
    ['input constraints refuse a wrong type', tool('web_search', { query: 42 }), 'deny', null],
    [
      'input that is not an object fails allow constraints and matches deny constraints',
      tool('web_search', 'rome'),
      'deny',
      'no-secrets',
    ],
    [
      'a deny on input wins over the allow',
      tool('web_search', { query: 'my PASSWORD please' }),
      'deny',
      'no-secrets',
    ],
    [
      'integer constraint accepts integers',
      tool('calendar_read', { days: 7 }),
      'allow',
      'calendar',
    ],
    ['integer constraint refuses fractions', tool('calendar_read', { days: 1.5 }), 'deny', null],
    [
      'additional_input: false refuses unlisted keys',
      tool('calendar_read', { days: 7, calendar: 'work' }),
      'deny',
      null,
    ],
    [
      'additional_input: false allows an empty input',
      tool('calendar_read', {}),
      'allow',
      'calendar',
    ],
    [
      'nested fields accept allowed values',
      tool('notes', { options: { mode: 'read' } }),
      'allow',
      'allowed_tools[3]',
    ],
    [
      'nested fields refuse other values',
      tool('notes', { options: { mode: 'delete' } }),
      'deny',
      null,
    ],
    ['nested fields need an object', tool('notes', { options: 'read' }), 'deny', null],
  ])('%s', (_name, call, outcome, rule) => {
    const d = engine.evaluate(call);
    expect({
      outcome: d.outcome,
      rule: d.rule.id === DEFAULT_DENY_RULE_ID ? null : d.rule.id,
    }).toEqual({ outcome, rule });
  });

  test('web_search domain_allowlist becomes a filter_result_urls obligation', () => {
    const d = engine.evaluate(tool('web_search', { query: 'rome' }));
    expect(d.obligations).toEqual([
      { type: 'filter_result_urls', allow_domains: ['en.wikipedia.org', '*.python.org'] },
    ]);
  });

  test('obligations and rule references are frozen so no caller can alter the policy', () => {
    const d = engine.evaluate(tool('web_search', { query: 'rome' }));
    expect(Object.isFrozen(d.obligations)).toBe(true);
    const [first] = d.obligations;
    expect(first?.type === 'filter_result_urls' && Object.isFrozen(first.allow_domains)).toBe(true);
    expect(Object.isFrozen(d.rule)).toBe(true);
  });

  test('the default deny names the tool and the file to edit', () => {
    expect(engine.evaluate(tool('file_write')).reason).toBe(
      'tool \'file_write\' is not on the allow-list: no allowed_tools entry in policy.yaml matches it; to allow it, add "- file_write" under allowed_tools there',
    );
  });

  test('a tool id that is not a valid id is quoted and clamped in the reason, with no hint', () => {
    const reason = engine.evaluate(tool(`Evil ${'x'.repeat(200)}`)).reason;
    expect(reason).toMatch(
      /^tool "Evil x+… is not on the allow-list: no allowed_tools entry in policy\.yaml matches it$/,
    );
  });

  test('a rejected call names every rule count and the first rejection', () => {
    const { engine: e } = engineOf(`
allowed_tools:
  - tool: t
    id: first
    input: {a: 1}
  - tool: t
    id: second
    input: {a: 2}
`);
    expect(e.evaluate(tool('t', { a: 3 })).reason).toBe(
      `tool 't' is not allowed: first (policy.yaml:3:5 in policy sha256 ${e.policy.sha256.slice(0, 12)}) rejects it: input.a must equal 1, got 3; 1 other rule(s) rejected it too`,
    );
    expect(e.evaluate(tool('t', { a: 2 })).rule?.id).toBe('second');
  });
});

describe('call_service through the generic tool shape', () => {
  const { engine: e } = engineOf(
    'allowed_services:\n  - service: light.turn_on\n    target: {entity_id: light.kitchen}\n',
  );

  test.each<[string, unknown, DecisionOutcome]>([
    [
      'a valid input is judged as a service call',
      { domain: 'light', service: 'turn_on', target: { entity_id: 'light.kitchen' } },
      'allow',
    ],
    [
      'a valid input outside the rule is denied',
      { domain: 'light', service: 'turn_on', target: { entity_id: 'light.x' } },
      'deny',
    ],
    ['a missing domain is malformed', { service: 'turn_on' }, 'deny'],
    ['a non-object input is malformed', 'light.turn_on', 'deny'],
    [
      'an unknown target key is malformed',
      { domain: 'light', service: 'turn_on', target: { entity_id: 'light.kitchen', zone: 'x' } },
      'deny',
    ],
  ])('%s', (_name, input, outcome) => {
    expect(e.evaluate(tool('call_service', input)).outcome).toBe(outcome);
  });

  test('a malformed call is denied by the default deny, with a reason', () => {
    const d = e.evaluate(tool('call_service', { domain: 'light' }));
    expect(d.reason).toMatch(/^malformed service call: /);
    expect(d.rule.id).toBe(DEFAULT_DENY_RULE_ID);
  });
});
