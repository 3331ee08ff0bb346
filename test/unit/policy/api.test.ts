import { describe, expect, test } from 'vitest';
import { ERROR_CATALOGUE } from '../../../src/errors/catalogue.js';
import {
  compilePolicy,
  openPolicyStore,
  OUTCOME_ERROR_CODES,
  PolicyEngine,
} from '../../../src/policy/index.js';
import { DEFAULT_DENY_RULE_ID, PolicyDecisionSchema } from '../../../src/policy/decision.js';
import { NOT_CONFIGURED_REASON, unconfiguredPolicy } from '../../../src/policy/unconfigured.js';
import type { Policy } from '../../../src/policy/engine.js';
import type { ServiceCall } from '../../../src/policy/tool-call.js';
import { engineOf, svc, tool } from './helpers.js';

describe('the Policy API', () => {
  const { engine } = engineOf(`
allowed_services:
  - service: light.turn_on
    id: lights
    target: {entity_id: light.kitchen}
allowed_tools: [calculator]
`);

  test('evaluate(call) returns a decision of the documented shape', () => {
    const d = engine.evaluate(tool('calculator', { expression: '1+1' }));
    expect(PolicyDecisionSchema.strict().parse(d)).toEqual({
      allowed: true,
      outcome: 'allow',
      reason: `allowed by allowed_tools[0] (policy.yaml:6:17 in policy sha256 ${engine.policy.sha256.slice(0, 12)})`,
      rule: {
        id: 'allowed_tools[0]',
        file: 'policy.yaml',
        line: 6,
        column: 17,
        list: 'allowed_tools',
        index: 0,
      },
      decision_id: null,
      policy_sha256: engine.policy.sha256,
      obligations: [],
    });
  });

  test('evaluate decides the service-only shape {domain, service, target}', () => {
    const call: ServiceCall = {
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: 'light.kitchen' },
    };
    const policy: Policy = engine;
    expect(policy.evaluate(call).rule.id).toBe('lights');
    expect(policy.evaluate({ ...call, target: { entity_id: 'light.hall' } }).outcome).toBe('deny');
  });

  test('every outcome but allow maps to a brain-side error code of the wire catalogue', () => {
    for (const code of Object.values(OUTCOME_ERROR_CODES)) {
      expect(ERROR_CATALOGUE[code].kind).toBe('brain');
    }
  });

  test('rule.id is a string on every decision, so an audit row can store it', () => {
    for (const call of [tool('calculator'), tool('nope'), svc('light.turn_on'), tool('x.y.z')]) {
      expect(typeof engine.evaluate(call).rule.id).toBe('string');
    }
  });
});

describe('no policy file, or an empty one', () => {
  test('no file configured: every call is denied with a reason that says how to enable a policy', async () => {
    for (const path of [undefined, null, '']) {
      using store = await openPolicyStore({ path });
      const d = store.evaluate(tool('calculator'));
      expect(d).toMatchObject({ allowed: false, outcome: 'deny', reason: NOT_CONFIGURED_REASON });
      expect(d.rule.id).toBe(DEFAULT_DENY_RULE_ID);
      expect(store.evaluate(svc('light.turn_on')).reason).toBe(NOT_CONFIGURED_REASON);
      expect(d.reason).toMatch(/set policy\.file in caesar\.yaml/);
      expect(await store.reload()).toMatchObject({
        type: 'policy.reload_failed',
        code: 'policy_not_configured',
      });
    }
    expect(new PolicyEngine(unconfiguredPolicy()).evaluate(tool('x')).reason).toBe(
      NOT_CONFIGURED_REASON,
    );
  });

  test.each([
    ['an empty file', ''],
    ['a file of blank lines', '\n\n  \n'],
    ['a file that is only comments', '# nothing here yet\n# really\n'],
  ])('%s: every call is denied, with a warning', (_name, text) => {
    const policy = compilePolicy(text, { file: 'policy.yaml' });
    expect(policy.warnings).toEqual([
      {
        path: '',
        line: 1,
        column: 1,
        message: expect.stringMatching(/^the policy file is empty, so every tool call is denied/),
      },
    ]);
    const engine = new PolicyEngine(policy);
    expect(engine.evaluate(tool('calculator')).outcome).toBe('deny');
    expect(engine.evaluate(svc('light.turn_on')).outcome).toBe('deny');
    expect(engine.evaluate(tool('calculator')).reason).toMatch(/is not on the allow-list/);
  });
});
