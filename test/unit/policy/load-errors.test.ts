import { describe, expect, test } from 'vitest';
import { compilePolicy, formatIssue, type PolicyLoadError } from '../../../src/policy/index.js';
import type { PolicyIssue } from '../../../src/policy/issues.js';
import { issuesOf } from './helpers.js';

describe('a bad policy is refused with file:line:column', () => {
  test.each<
    [string, string, Partial<Omit<PolicyIssue, 'message'>> & { message?: string | RegExp }]
  >([
    ['a YAML syntax error', 'allowed_tools: [calculator\n', { line: 2, message: /^YAML: / }],
    [
      'a duplicate key',
      'allowed_tools: []\nallowed_tools: [x]\n',
      { line: 2, column: 1, message: /duplicated mapping key/ },
    ],
    [
      'two documents',
      'version: 1\n---\nversion: 1\n',
      { line: 3, message: /more than one document/ },
    ],
    [
      'an unknown tag',
      'allowed_tools: [!shell calculator]\n',
      { line: 1, column: 17, message: /unknown tag !<!shell>/ },
    ],
    ['a top level that is not a map', '- calculator\n', { path: '', message: /expected object/ }],
    [
      'version 2',
      'version: 2\n',
      { path: 'version', line: 1, column: 10, message: /unsupported policy version/ },
    ],
    [
      'an unknown top-level key',
      'version: 1\nallow_tools: []\n',
      {
        path: 'allow_tools',
        line: 2,
        column: 1,
        message: "unknown key 'allow_tools' (did you mean 'allowed_tools'?)",
      },
    ],
    [
      'a misspelt rule key',
      'allowed_services:\n  - service: light.turn_off\n    tagret:\n      entity_id: light.x\n',
      {
        path: 'allowed_services[0].tagret',
        line: 3,
        column: 5,
        message: "unknown key 'tagret' (did you mean 'target'?)",
      },
    ],
    [
      'a service without a domain',
      'allowed_services: [turn_on]\n',
      {
        path: 'allowed_services[0].service',
        line: 1,
        column: 20,
        message: /expected a service id domain\.service matching/,
      },
    ],
    [
      'a service with spaces',
      'allowed_services: ["light. turn_on"]\n',
      { message: /expected a service id domain\.service/ },
    ],
    [
      'an uppercase service id',
      'allowed_services: [Light.Turn_On]\n',
      { path: 'allowed_services[0].service', message: /\^\[a-z0-9_\]\+\\\.\[a-z0-9_\]\+\$/ },
    ],
    [
      'a service id with a hyphen',
      'denied_services: [light.turn-on]\n',
      { path: 'denied_services[0].service', message: /expected a service id/ },
    ],
    [
      'an uppercase tool id',
      'allowed_tools: [Calculator]\n',
      { path: 'allowed_tools[0].tool', message: /\^\[a-z\]\[a-z0-9_\]\*\$/ },
    ],
    [
      // `tool.action` names an action (ADR 0092); a second dot names nothing
      'a tool id with two dots',
      'denied_tools: [web.search.deep]\n',
      { path: 'denied_tools[0].tool', message: /expected a tool id/ },
    ],
    [
      'a misspelt target key (targets:)',
      'allowed_services:\n  - service: light.turn_off\n    targets: {entity_id: light.kitchen}\n',
      {
        path: 'allowed_services[0].targets',
        line: 3,
        column: 5,
        message: "unknown key 'targets' (did you mean 'target'?)",
      },
    ],
    [
      'a tool without a name',
      'allowed_tools:\n  - input: {}\n',
      { path: 'allowed_tools[0].tool', line: 2, column: 5 },
    ],
    [
      'an empty target',
      'allowed_services:\n  - service: light.turn_on\n    target: {}\n',
      { path: 'allowed_services[0].target', line: 3, column: 13, message: /at least one selector/ },
    ],
    [
      'an unknown selector',
      'allowed_services:\n  - service: light.turn_on\n    target: {zone_id: home}\n',
      { path: 'allowed_services[0].target.zone_id', message: /unknown key 'zone_id'/ },
    ],
    [
      'a selector id with a comma',
      'allowed_services:\n  - service: light.turn_on\n    target: {entity_id: "light.a,light.b"}\n',
      { path: 'allowed_services[0].target.entity_id[0]', message: /no spaces or commas/ },
    ],
    [
      'an empty selector list',
      'allowed_services:\n  - service: light.turn_on\n    target: {entity_id: []}\n',
      { path: 'allowed_services[0].target.entity_id' },
    ],
    [
      'a selector constrained in data',
      'allowed_services:\n  - service: light.turn_on\n    data: {entity_id: light.x}\n',
      {
        path: 'allowed_services[0].data.entity_id',
        line: 3,
        column: 23,
        message: /constrain it under target/,
      },
    ],
    [
      'a null constraint',
      'allowed_services:\n  - service: light.turn_on\n    data: {brightness:}\n',
      { path: 'allowed_services[0].data.brightness', message: /write \{\} to allow any value/ },
    ],
    [
      'an unknown constraint operator',
      'allowed_tools:\n  - tool: calculator\n    input:\n      expression: {maximum: 3}\n',
      {
        path: 'allowed_tools[0].input.expression.maximum',
        line: 4,
        column: 20,
        message: /did you mean 'max_items'|unknown key 'maximum'/,
      },
    ],
    [
      'min above max',
      'allowed_services:\n  - service: light.turn_on\n    data: {brightness_pct: {min: 90, max: 10}}\n',
      { path: 'allowed_services[0].data.brightness_pct.min', message: 'min is greater than max' },
    ],
    [
      'an invalid regular expression',
      'allowed_tools:\n  - tool: calculator\n    input: {expression: {pattern: "(["}}\n',
      {
        path: 'allowed_tools[0].input.expression.pattern',
        message: /^not a valid RE2 regular expression: .*missing closing \]/,
      },
    ],
    [
      'forbidden combined with another operator',
      'allowed_tools:\n  - tool: x\n    input: {mode: {forbidden: true, equals: a}}\n',
      { path: 'allowed_tools[0].input.mode', message: /cannot be combined/ },
    ],
    [
      'a wrong operator type',
      'allowed_services:\n  - service: light.turn_on\n    data: {brightness: {max: high}}\n',
      { path: 'allowed_services[0].data.brightness.max', message: /expected number/ },
    ],
    [
      'required in a deny rule',
      'denied_services:\n  - service: light.turn_on\n    data: {flash: {required: true}}\n',
      {
        path: 'denied_services[0].data.flash.required',
        line: 3,
        column: 30,
        message: /for allow rules/,
      },
    ],
    [
      'forbidden nested in a deny rule',
      'denied_tools:\n  - tool: x\n    input: {opts: {fields: {a: {forbidden: true}}}}\n',
      { path: 'denied_tools[0].input.opts.fields.a.forbidden', message: /for allow rules/ },
    ],
    [
      'call_service in allowed_tools',
      'allowed_tools: [call_service]\n',
      { path: 'allowed_tools[0].tool', message: /governed by allowed_services/ },
    ],
    [
      'call_service with input in denied_tools',
      'denied_tools:\n  - tool: call_service\n    input: {domain: lock}\n',
      { path: 'denied_tools[0].input', message: /denied_services/ },
    ],
    [
      'domain_allowlist on another shipped tool',
      'allowed_tools:\n  - tool: calculator\n    input: {domain_allowlist: [a.org]}\n',
      {
        path: 'allowed_tools[0].input.domain_allowlist',
        line: 3,
        column: 13,
        message: /^domain_allowlist applies only to web_search; calculator takes/,
      },
    ],
    [
      'domain_allowlist on a tool that is not shipped',
      'allowed_tools:\n  - tool: notes\n    input: {domain_allowlist: [a.org]}\n',
      {
        path: 'allowed_tools[0].input.domain_allowlist',
        message: 'domain_allowlist applies only to web_search',
      },
    ],
    [
      'domain_allowlist in a deny rule',
      'denied_tools:\n  - tool: web_search\n    input: {domain_allowlist: [a.org]}\n',
      {
        path: 'denied_tools[0].input.domain_allowlist',
        message:
          'domain_allowlist is a web_search setting for allow rules; a deny rule constrains input fields',
      },
    ],
    [
      'a misspelt typed key (domain_allowlst)',
      'allowed_tools:\n  - tool: web_search\n    input:\n      domain_allowlst: [a.org]\n',
      {
        path: 'allowed_tools[0].input.domain_allowlst',
        line: 4,
        column: 7,
        message:
          /^unknown key 'domain_allowlst' for web_search \(did you mean 'domain_allowlist'\?\)/,
      },
    ],
    [
      'a constraint on a field web_search does not have',
      'allowed_tools:\n  - tool: web_search\n    input: {count: {max: 5}}\n',
      { path: 'allowed_tools[0].input.count', message: /^unknown key 'count' for web_search/ },
    ],
    [
      'max_results that is not a positive integer',
      'allowed_tools:\n  - tool: web_search\n    input: {max_results: 0}\n',
      { path: 'allowed_tools[0].input.max_results', message: /expected number to be >=1/ },
    ],
    [
      'an empty calendars list',
      'allowed_tools:\n  - tool: calendar_read\n    input: {calendars: []}\n',
      { path: 'allowed_tools[0].input.calendars' },
    ],
    [
      'max_range_days that is not a number',
      'allowed_tools:\n  - tool: calendar_read\n    input: {max_range_days: month}\n',
      { path: 'allowed_tools[0].input.max_range_days', message: /expected number/ },
    ],
    [
      'calculator max_length that is not a number',
      'allowed_tools:\n  - tool: calculator\n    input: {max_length: long}\n',
      { path: 'allowed_tools[0].input.max_length', message: /expected number/ },
    ],
    [
      'a typed key of another tool (max_length on web_search)',
      'allowed_tools:\n  - tool: web_search\n    input: {max_length: 5}\n',
      {
        path: 'allowed_tools[0].input.max_length',
        message: /^max_length applies only to calculator/,
      },
    ],
    [
      'a constraint operator written as an input field of an unshipped tool',
      'allowed_tools:\n  - tool: notes\n    input: {pattern: "[a-z]+"}\n',
      {
        path: 'allowed_tools[0].input.pattern',
        message: /is a constraint operator, not an input field/,
      },
    ],
    [
      'the reserved rule id default_deny',
      'allowed_tools:\n  - {tool: a, id: default_deny}\n',
      { path: 'allowed_tools[0].id', message: /reserved/ },
    ],
    [
      'a domain_allowlist entry with a scheme',
      'allowed_tools:\n  - tool: web_search\n    input: {domain_allowlist: ["https://a.org"]}\n',
      { path: 'allowed_tools[0].input.domain_allowlist[0]', message: /no scheme/ },
    ],
    [
      'an empty domain_allowlist',
      'allowed_tools:\n  - tool: web_search\n    input: {domain_allowlist: []}\n',
      { path: 'allowed_tools[0].input.domain_allowlist' },
    ],
    [
      'a duplicate rule id',
      'allowed_tools:\n  - {tool: a, id: same}\n  - {tool: b, id: same}\n',
      {
        path: 'allowed_tools[1].id',
        line: 3,
        column: 19,
        message: "rule id 'same' is already used by allowed_tools[0]",
      },
    ],
    [
      'a bad rule id',
      'allowed_tools:\n  - {tool: a, id: "has space"}\n',
      { path: 'allowed_tools[0].id', message: /rule id/ },
    ],
    [
      'a rate limit without a unit',
      'allowed_tools:\n  - {tool: a, rate_limit: {calls: 3, per: 60}}\n',
      { path: 'allowed_tools[0].rate_limit.per' },
    ],
    [
      'a rate limit shorthand that does not parse',
      'allowed_tools:\n  - {tool: a, rate_limit: "3 per minute"}\n',
      { path: 'allowed_tools[0].rate_limit' },
    ],
    [
      'a rate limit with an unknown unit',
      'allowed_tools:\n  - {tool: a, rate_limit: 10/fortnight}\n',
      { path: 'allowed_tools[0].rate_limit.per', message: /expected a duration/ },
    ],
    [
      'a zero rate limit',
      'allowed_tools:\n  - {tool: a, rate_limit: 0/1m}\n',
      { path: 'allowed_tools[0].rate_limit.calls' },
    ],
    [
      'a rate limit window over 30 days',
      'allowed_tools:\n  - {tool: a, rate_limit: 1/31d}\n',
      { path: 'allowed_tools[0].rate_limit.per', message: /30d/ },
    ],
    [
      'confirm on a deny rule',
      'denied_tools:\n  - {tool: a, confirm: true}\n',
      { path: 'denied_tools[0].confirm', message: /unknown key 'confirm'/ },
    ],
    [
      'additional_data on a deny rule',
      'denied_services:\n  - {service: a.b, additional_data: false}\n',
      { path: 'denied_services[0].additional_data' },
    ],
    [
      'confirm that is not a boolean',
      'allowed_tools:\n  - {tool: a, confirm: "yes"}\n',
      { path: 'allowed_tools[0].confirm', message: /expected boolean/ },
    ],
  ])('%s', (_name, yaml, expected) => {
    const issues = issuesOf(yaml);
    const { message, ...rest } = expected;
    const want =
      message === undefined
        ? rest
        : {
            ...rest,
            message: typeof message === 'string' ? message : expect.stringMatching(message),
          };
    expect(issues).toContainEqual(expect.objectContaining(want));
  });

  test('every problem in the file is reported at once, in file order', () => {
    const issues = issuesOf(`allowed_tools:
  - Bad
  - tool: ok
    tagret: 1
  - tool: web_search
    confirm: "yes"
    input: {domain_allowlst: [a.org], query: {max_lenght: 5}}
  - {tool: x, id: same}
  - {tool: y, id: same}
denied_tools: [Worse]
allowed_services: [Light.On]
`);
    expect(issues.map((i) => `${i.line}:${i.column} ${i.path}`)).toEqual([
      '2:5 allowed_tools[0].tool',
      '4:5 allowed_tools[1].tagret',
      '6:14 allowed_tools[2].confirm',
      '7:13 allowed_tools[2].input.domain_allowlst',
      '7:47 allowed_tools[2].input.query.max_lenght',
      '9:19 allowed_tools[4].id',
      '10:16 denied_tools[0].tool',
      '11:20 allowed_services[0].service',
    ]);
  });

  test('a YAML syntax error is reported at the first place the text stops parsing', () => {
    const issues = issuesOf('allowed_tools: [a\nallowed_services: {b\nx: "unterminated\n');
    expect(issues.map((i) => `${i.line}:${i.column}`)).toEqual(['2:1']);
    expect(issues.every((i) => i.message.startsWith('YAML: '))).toBe(true);
  });

  test('the error message lists each problem as file:line:column: path: message', () => {
    const yaml = 'allowed_services:\n  - service: light.turn_off\n    tagret: {}\n';
    const err = (() => {
      try {
        compilePolicy(yaml, { file: 'policy/policy.yaml' });
      } catch (e) {
        return e as PolicyLoadError;
      }
      throw new Error('expected a PolicyLoadError');
    })();
    expect(err.code).toBe('policy_invalid');
    expect(err.file).toBe('policy/policy.yaml');
    expect(err.message).toContain(
      "policy/policy.yaml:3:5: allowed_services[0].tagret: unknown key 'tagret' (did you mean 'target'?)",
    );
    expect(formatIssue('f.yaml', { path: '', line: 1, column: 2, message: 'm' })).toBe(
      'f.yaml:1:2: m',
    );
  });

  test('a billion-laughs alias bomb is refused', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(
        `${next}: &${next} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`,
      );
    }
    expect(issuesOf(lines.join('\n') + '\n')[0]?.message).toMatch(/YAML/);
  });
});
