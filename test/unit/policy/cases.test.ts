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
