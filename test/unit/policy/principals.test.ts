import { describe, expect, test } from 'vitest';
import { hasAllowRuleFor, unknownAudienceWarnings } from '../../../src/policy/index.js';
import { engineOf, issuesOf, policyOf, svc, tool } from './helpers.js';

const KID = { name: 'kids_tablet', groups: ['kids'] };
const MUM = { name: 'mum', groups: ['parents'] };
const GUEST = { name: 'guest', groups: [] };

describe('rules that name principals or groups (ADR 0096)', () => {
  const { engine } = engineOf(`
denied_services:
  - service: lock.*
    id: kids-no-locks
    groups: [kids]
denied_entities:
  - entity_id: switch.fridge
    id: kids-not-fridge
    principals: [kids_tablet]
allowed_services:
  - service: light.turn_on
    id: lights
  - service: lock.unlock
    id: parents-unlock
    groups: [parents]
  - service: switch.turn_off
    id: switches
allowed_tools:
  - tool: calculator
    id: calc-for-mum
    principals: [mum]
denied_tools:
  - tool: web_search
    id: kids-no-search
    groups: [kids]
  - tool: web_search
    id: search-open
`);

  test('a rule without principals or groups applies to every caller, as before', () => {
    for (const principal of [KID, MUM, GUEST, undefined]) {
      const d = engine.evaluate(svc('light.turn_on'), principal ? { principal } : {});
      expect(d).toMatchObject({ outcome: 'allow', rule: { id: 'lights' } });
    }
  });

  test('a deny rule for a group denies its members and no one else', () => {
    const kid = engine.evaluate(svc('lock.unlock', { entity_id: 'lock.front' }), {
      principal: KID,
    });
    expect(kid).toMatchObject({ outcome: 'deny', rule: { id: 'kids-no-locks' } });
    const mum = engine.evaluate(svc('lock.unlock', { entity_id: 'lock.front' }), {
      principal: MUM,
    });
    expect(mum).toMatchObject({ outcome: 'allow', rule: { id: 'parents-unlock' } });
  });

  test('an allow rule for a group allows no one else, and the reason says whom it is for', () => {
    const d = engine.evaluate(svc('lock.unlock'), { principal: GUEST });
    expect(d.outcome).toBe('deny');
    expect(d.rule.id).toBe('default_deny');
    expect(d.reason).toContain('is not allowed for principal guest (no groups)');
    expect(d.reason).toContain('parents-unlock');
    expect(d.reason).toContain('applies only to group parents');
  });

  test('a caller with no principal is in no audience', () => {
    expect(engine.evaluate(svc('lock.unlock')).outcome).toBe('deny');
    expect(engine.evaluate(tool('calculator')).outcome).toBe('deny');
    expect(engine.evaluate(tool('calculator'), { principal: MUM }).outcome).toBe('allow');
  });

  test('an entity rule for a principal denies only that principal', () => {
    const call = svc('switch.turn_off', { entity_id: 'switch.fridge' });
    expect(engine.evaluate(call, { principal: KID })).toMatchObject({
      outcome: 'deny',
      rule: { id: 'kids-not-fridge' },
    });
    expect(engine.evaluate(call, { principal: MUM }).outcome).toBe('allow');
  });

  test('tool deny rules: the one for kids denies kids, others meet the next rule', () => {
    expect(engine.evaluate(tool('web_search'), { principal: KID }).rule.id).toBe('kids-no-search');
    expect(engine.evaluate(tool('web_search'), { principal: MUM }).rule.id).toBe('search-open');
  });

  test('explain traces a rule that does not apply to the caller', () => {
    const { trace } = engine.explain(svc('lock.unlock'), { principal: GUEST });
    expect(trace).toContainEqual(
      expect.objectContaining({
        rule: expect.objectContaining({ id: 'kids-no-locks' }),
        result: 'not_matched',
        detail: 'applies only to group kids, not to principal guest (no groups)',
      }),
    );
  });
});

describe('rate limits per principal', () => {
  test('a rate limit on a rule with groups counts each principal apart', () => {
    const { engine, clock } = engineOf(`
allowed_tools:
  - tool: calculator
    id: calc
    groups: [family]
    rate_limit: 2/minute
`);
    const a = { name: 'a', groups: ['family'] };
    const b = { name: 'b', groups: ['family'] };
    expect(engine.evaluate(tool('calculator'), { principal: a }).outcome).toBe('allow');
    expect(engine.evaluate(tool('calculator'), { principal: a }).outcome).toBe('allow');
    const third = engine.evaluate(tool('calculator'), { principal: a });
    expect(third.outcome).toBe('rate_limited');
    expect(third.reason).toContain('for each principal (a has used them)');
    // b has a window of its own
    expect(engine.evaluate(tool('calculator'), { principal: b }).outcome).toBe('allow');
    // explaining for a principal that never called leaves no window behind
    expect(engine.explain(tool('calculator'), { principal: b }).decision.outcome).toBe('allow');
    clock.now += 60_001;
    expect(engine.evaluate(tool('calculator'), { principal: a }).outcome).toBe('allow');
  });

  test('a rate limit on a rule without principals is shared by every caller, as before', () => {
    const { engine } = engineOf(`
allowed_tools:
  - tool: calculator
    rate_limit: 1/minute
`);
    expect(engine.evaluate(tool('calculator'), { principal: KID }).outcome).toBe('allow');
    expect(engine.evaluate(tool('calculator'), { principal: MUM }).outcome).toBe('rate_limited');
  });
});

describe('approvers', () => {
  test('a held call carries the rule approvers, and the reason names them', () => {
    const { engine } = engineOf(`
allowed_services:
  - service: cover.open_cover
    id: garage
    confirm: true
    approvers: {groups: [parents]}
`);
    const d = engine.evaluate(svc('cover.open_cover'), { principal: KID });
    expect(d).toMatchObject({
      outcome: 'confirm',
      approvers: { principals: [], groups: ['parents'] },
    });
    expect(d.reason).toContain("needs a human's approval, by group parents, before it runs");
    expect(engine.evaluate(svc('cover.open_cover'), { confirmed: true }).approvers).toEqual({
      principals: [],
      groups: ['parents'],
    });
  });
});

describe('grammar', () => {
  test.each([
    ['an upper-case principal', 'allowed_tools:\n  - tool: calculator\n    principals: [Kid]\n'],
    ['an empty groups list', 'allowed_tools:\n  - tool: calculator\n    groups: []\n'],
    ['a group listed twice', 'allowed_tools:\n  - tool: calculator\n    groups: [a, a]\n'],
    ['empty approvers', 'allowed_tools:\n  - tool: calculator\n    approvers: {}\n'],
    [
      'approvers on a deny rule',
      'denied_tools:\n  - tool: calculator\n    approvers: {groups: [a]}\n',
    ],
    [
      'an unknown approvers key',
      'allowed_tools:\n  - tool: calculator\n    approvers: {group: [a]}\n',
    ],
  ])('refuses %s with its line', (_what, yaml) => {
    const issues = issuesOf(yaml);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]?.line).toBeGreaterThanOrEqual(2);
  });

  test('a deny rule that names a group shadows no allow rule', () => {
    const p = policyOf(`
denied_tools:
  - tool: calculator
    groups: [kids]
allowed_tools:
  - tool: calculator
`);
    expect(p.warnings).toEqual([]);
  });
});

describe('names a tokens file may not have', () => {
  test('the compiled policy lists each principal and group with its place; the check word it', () => {
    const p = policyOf(`
allowed_tools:
  - tool: calculator
    principals: [mum]
    approvers: {groups: [parent]}
`);
    expect(p.audienceMentions).toEqual([
      {
        kind: 'principal',
        name: 'mum',
        path: 'allowed_tools[0].principals[0]',
        line: 4,
        column: 18,
      },
      {
        kind: 'group',
        name: 'parent',
        path: 'allowed_tools[0].approvers.groups[0]',
        line: 5,
        column: 26,
      },
    ]);
    const known = { principals: ['mum'], groups: ['parents'] };
    const warnings = unknownAudienceWarnings(p.audienceMentions, known, 'api-tokens.yaml');
    expect(warnings.map((w) => w.message)).toEqual([
      "group 'parent' is in no token of api-tokens.yaml, so this names no caller yet; did you mean 'parents'?",
    ]);
  });
});

describe('hasAllowRuleFor: what may be offered to whom', () => {
  const policy = policyOf(`
allowed_tools:
  - tool: echo
    id: kids-echo
    principals: [kids_tablet]
  - tool: demo
    id: demo-for-all
allowed_services:
  - service: lock.unlock
    id: parents-unlock
    groups: [parents]
`);

  test("another principal's allow rule offers nothing; the caller's own does", () => {
    expect(hasAllowRuleFor(policy, 'echo', KID)).toBe(true);
    expect(hasAllowRuleFor(policy, 'echo', MUM)).toBe(false);
    expect(hasAllowRuleFor(policy, 'echo', undefined)).toBe(false);
  });

  test('a tool-wide rule covers an action; a service rule covers the service action, for its audience', () => {
    expect(hasAllowRuleFor(policy, 'demo.echo', GUEST)).toBe(true);
    expect(hasAllowRuleFor(policy, 'home_assistant.call_service', MUM)).toBe(true);
    expect(hasAllowRuleFor(policy, 'home_assistant.call_service', KID)).toBe(false);
    expect(hasAllowRuleFor(policy, 'calculator', MUM)).toBe(false);
  });
});
