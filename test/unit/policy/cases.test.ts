import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadPolicyFile, parsePolicyCases, runPolicyCases } from '../../../src/policy/index.js';
import { PolicyCasesError } from '../../../src/policy/errors.js';
import { policyOf } from './helpers.js';

const POLICY = policyOf(`
allowed_services:
  - service: light.turn_on
    id: lights
    target: {entity_id: light.kitchen}
allowed_tools:
  - tool: calendar_read
    rate_limit: 1/1h
`);

describe('policy test cases', () => {
  test('runs cases in order and reports each mismatch', () => {
    const cases = parsePolicyCases(`
cases:
  - name: kitchen light by shorthand service
    call: {service: light.turn_on, target: {entity_id: light.kitchen}}
    expect: allow
    rule: lights
  - name: full service form
    call: {domain: light, service: turn_on, target: {entity_id: light.hall}}
    expect: deny
    rule: null
  - name: first calendar call
    call: {tool: calendar_read}
    expect: allow
  - name: second calendar call within the hour
    call: {tool: calendar_read}
    expect: rate_limited
  - name: an hour later
    advance: 1h
    call: {tool: calendar_read}
    expect: allow
  - name: a wrong expectation
    call: {tool: shell, input: {cmd: ls}}
    expect: allow
    rule: lights
`);
    const results = runPolicyCases(POLICY, cases);
    expect(results.map((r) => r.passed)).toEqual([true, true, true, true, true, false]);
    expect(results[5]?.mismatch).toBe(
      'expected allow, got deny; expected rule lights, got default_deny',
    );
  });

  test('a case may be a model call: what its turn read, what the tool does, and its turn', () => {
    const policy = policyOf(`
allowed_services:
  - {service: light.turn_on, id: lights}
allowed_tools:
  - {tool: web_search, id: search, rate_limit: 1/turn}
`);
    const cases = parsePolicyCases(`
cases:
  - name: a service after untrusted content waits for a human
    call: {service: light.turn_on}
    flow: {after_untrusted: true}
    expect: confirm
  - name: a search after the calendar waits too (open_world said)
    call: {tool: web_search, input: {query: x}}
    flow: {after_private: true, open_world: true}
    expect: confirm
  - name: a tool's effects are the case's to say
    call: {tool: web_search, input: {query: x}}
    flow: {after_private: true}
    expect: allow
  - name: the turn's one search is spent
    call: {tool: web_search, input: {query: y}}
    flow: {}
    expect: rate_limited
  - name: another turn has its own
    call: {tool: web_search, input: {query: y}}
    flow: {turn: second}
    expect: allow
  - name: an API invoke has no per-turn limit
    call: {tool: web_search, input: {query: y}}
    expect: allow
`);
    const results = runPolicyCases(policy, cases);
    expect(results.filter((r) => !r.passed)).toEqual([]);
    expect(results[0]?.decision.flow).toEqual([
      { gate: 'after_untrusted', action: 'confirm', set_by: 'flow default' },
    ]);
  });

  test.each(
    readdirSync('policy/examples')
      .filter((f) => f.endsWith('.cases.yaml'))
      .map((f) => join('policy/examples', f)),
  )('the repository example %s passes against its policy', async (file) => {
    const policy = await loadPolicyFile(file.replace('.cases.yaml', '.yaml'));
    const cases = parsePolicyCases(await readFile(file, 'utf8'), file);
    expect(cases.length).toBeGreaterThan(3);
    expect(runPolicyCases(policy, cases).filter((r) => !r.passed)).toEqual([]);
  });

  test.each([
    ['no cases', 'cases: []\n', 'cases'],
    [
      'an unknown outcome',
      'cases:\n  - {name: a, call: {tool: t}, expect: allowed}\n',
      'cases[0].expect',
    ],
    [
      'a call of neither shape',
      'cases:\n  - {name: a, call: {service: nodot}, expect: deny}\n',
      'cases[0].call.domain',
    ],
    [
      'an unknown key',
      'cases:\n  - {name: a, call: {tool: t}, expect: deny, expected: x}\n',
      'cases[0].expected',
    ],
    [
      'an unknown flow key',
      'cases:\n  - {name: a, call: {tool: t}, expect: deny, flow: {after_untrustd: true}}\n',
      'cases[0].flow.after_untrustd',
    ],
    [
      'a bad advance',
      'cases:\n  - {name: a, call: {tool: t}, expect: deny, advance: soon}\n',
      'cases[0].advance',
    ],
  ])('refuses a cases file with %s, with the path and position', (_name, yaml, path) => {
    let caught: unknown;
    try {
      parsePolicyCases(yaml, 'c.yaml');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PolicyCasesError);
    expect((caught as PolicyCasesError).code).toBe('policy_cases_invalid');
    expect((caught as PolicyCasesError).issues.map((i) => i.path)).toContain(path);
  });
});

describe('a case judged as a principal (ADR 0096)', () => {
  const policy = policyOf(`
allowed_services:
  - service: light.turn_on
    id: lights
denied_services:
  - service: light.*
    id: kids-no-lights
    groups: [kids]
`);

  test('principal and groups decide which rules apply; without them none naming them does', () => {
    const results = runPolicyCases(
      policy,
      parsePolicyCases(`
cases:
  - name: the tablet
    call: {service: light.turn_on}
    principal: kids_tablet
    groups: [kids]
    expect: deny
    rule: kids-no-lights
  - name: a parent
    call: {service: light.turn_on}
    principal: mum
    groups: [parents]
    expect: allow
  - name: no principal
    call: {service: light.turn_on}
    expect: allow
`),
    );
    expect(results.map((r) => [r.name, r.passed, r.mismatch])).toEqual([
      ['the tablet', true, ''],
      ['a parent', true, ''],
      ['no principal', true, ''],
    ]);
  });

  test('groups without a principal, or a malformed name, name the case and the field', () => {
    const parse = (text: string) => () => parsePolicyCases(text, 'cases.yaml');
    const base = 'cases:\n  - name: x\n    call: {tool: calculator}\n    expect: allow\n';
    expect(parse(`${base}    groups: [kids]\n`)).toThrow(
      /cases\.yaml:\d+:\d+: .*groups belong to a principal/,
    );
    expect(parse(`${base}    principal: Kids Tablet\n`)).toThrow(
      /cases\.yaml:\d+:\d+: .*principal/,
    );
  });
});
