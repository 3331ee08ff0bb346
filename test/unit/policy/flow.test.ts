import { describe, expect, test } from 'vitest';
import { PolicyDecisionSchema, type FlowVerdict } from '../../../src/policy/decision.js';
import type { FlowContext } from '../../../src/policy/index.js';
import { engineOf, issuesOf, policyOf, svc, tool } from './helpers.js';

// Flow rules (issue 27, scope 2; ADR 0066): what a model's turn had read decides what the calls
// the policy allows may do without a human.

/** A model's call: nothing read and no effect unless given. */
function flow(over: Partial<FlowContext> = {}): FlowContext {
  return {
    afterUntrusted: false,
    afterPrivate: false,
    changesState: false,
    openWorld: false,
    sharesPrivateWords: false,
    ...over,
  };
}

const UNTRUSTED_WRITE = flow({ afterUntrusted: true, changesState: true });
const PRIVATE_OUT = flow({ afterPrivate: true, openWorld: true, sharesPrivateWords: true });
const BOTH = flow({
  afterUntrusted: true,
  afterPrivate: true,
  changesState: true,
  openWorld: true,
  sharesPrivateWords: true,
});

const sha12 = (engine: { policy: { sha256: string } }) => engine.policy.sha256.slice(0, 12);

describe('flow grammar', () => {
  test('a policy without a flow section loads with both gates on confirm, set by the default', () => {
    const policy = policyOf('allowed_tools: [calculator]\n');
    expect(policy.flow).toMatchObject({
      afterUntrusted: { gate: 'after_untrusted', action: 'confirm', set_by: 'flow default' },
      afterPrivate: { gate: 'after_private', action: 'confirm', set_by: 'flow default' },
      privateMatch: 'any',
    });
  });

  test('the section cites each key it writes at its file:line:col', () => {
    const policy = policyOf(
      'flow:\n  after_untrusted: deny\n  private_match: shared_words\nallowed_tools: [calculator]\n',
    );
    const sha = policy.sha256.slice(0, 12);
    expect(policy.flow.afterUntrusted).toEqual({
      gate: 'after_untrusted',
      action: 'deny',
      set_by: `flow.after_untrusted (policy.yaml:2:3 in policy sha256 ${sha})`,
    });
    expect(policy.flow.afterPrivate.set_by).toBe('flow default');
    expect(policy.flow.privateMatch).toBe('shared_words');
    expect(policy.flow.privateMatchSetBy).toBe(
      `flow.private_match (policy.yaml:3:3 in policy sha256 ${sha})`,
    );
  });

  test.each([
    ['a bare flow key', 'flow:\nallowed_tools: [calculator]\n'],
    ['an empty flow map', 'flow: {}\nallowed_tools: [calculator]\n'],
    ['every key', 'flow: {after_untrusted: allow, after_private: deny, private_match: any}\n'],
    [
      'rule keys on both lists',
      'allowed_services:\n  - {service: light.turn_on, after_untrusted: allow}\nallowed_tools:\n  - {tool: web_search, after_private: deny, after_untrusted: confirm}\n',
    ],
  ])('loads %s', (_name, yaml) => {
    expect(() => policyOf(yaml)).not.toThrow();
  });

  test.each([
    [
      'an unknown action in the section',
      'flow:\n  after_untrusted: sometimes\n',
      {
        path: 'flow.after_untrusted',
        line: 2,
        column: 20,
        message: 'expected allow, confirm or deny',
      },
    ],
    [
      'a misspelt section key',
      'flow:\n  after_untrustd: deny\n',
      {
        path: 'flow.after_untrustd',
        line: 2,
        column: 3,
        message: "unknown key 'after_untrustd' (did you mean 'after_untrusted'?)",
      },
    ],
    [
      'an unknown private_match',
      'flow: {private_match: tokens}\n',
      { path: 'flow.private_match', line: 1, column: 23, message: 'expected any or shared_words' },
    ],
    [
      'a section that is not a map',
      'flow: [after_untrusted]\n',
      { path: 'flow', line: 1, column: 7 },
    ],
    [
      'a boolean where an action belongs, on a rule',
      'allowed_tools:\n  - tool: web_search\n    after_private: true\n',
      {
        path: 'allowed_tools[0].after_private',
        line: 3,
        column: 20,
        message: 'expected allow, confirm or deny',
      },
    ],
    [
      'a flow key on a deny rule',
      'denied_tools:\n  - {tool: shell, after_untrusted: deny}\n',
      {
        path: 'denied_tools[0].after_untrusted',
        line: 2,
        column: 19,
        message: "unknown key 'after_untrusted' here (it is a key of allow rules)",
      },
    ],
    [
      'a flow key on a denied_entities rule',
      'denied_entities:\n  - {entity_id: lock.front, after_untrusted: deny}\n',
      { path: 'denied_entities[0].after_untrusted' },
    ],
  ])('refuses %s, at its position', (_name, yaml, expected) => {
    expect(issuesOf(yaml)).toEqual([expect.objectContaining(expected)]);
  });
});

describe('rate_limit per turn: grammar', () => {
  test.each([
    ['3/turn', { window: null, turnCalls: 3 }],
    ['{calls: 2, per: turn}', { window: null, turnCalls: 2 }],
    ['[10/hour, 3/turn]', { window: { calls: 10, windowMs: 3_600_000 }, turnCalls: 3 }],
    ['[{calls: 4, per: turn}, 5/1m]', { window: { calls: 5, windowMs: 60_000 }, turnCalls: 4 }],
  ])('rate_limit: %s', (text, expected) => {
    const policy = policyOf(`allowed_tools:\n  - {tool: t, rate_limit: ${text}}\n`);
    const rule = policy.toolIndex.get('t')?.allows[0];
    expect(rule?.turnLimit).toBe(expected.turnCalls);
    expect(policy.rateSlots).toEqual(
      expected.window === null ? [] : [expect.objectContaining(expected.window)],
    );
  });

  test.each([
    ['two per-turn limits', '[3/turn, 4/turn]', 'allowed_tools[0].rate_limit[1]', /per-turn/],
    ['two window limits', '[3/1m, 4/1h]', 'allowed_tools[0].rate_limit[1]', /window/],
    ['an empty list', '[]', 'allowed_tools[0].rate_limit', /one or two limits/],
    ['three limits', '[1/1m, 2/turn, 3/1h]', 'allowed_tools[0].rate_limit', /one or two/],
    [
      'a misspelt turn',
      '{calls: 3, per: tunr}',
      'allowed_tools[0].rate_limit.per',
      /expected a duration.*; or turn \(per model turn\)/,
    ],
    ['a bare number in a list', '[{calls: 3, per: 60}]', 'allowed_tools[0].rate_limit[0].per', /./],
    ['zero calls per turn', '0/turn', 'allowed_tools[0].rate_limit.calls', /./],
    [
      'an unknown key in a limit',
      '{calls: 3, pre: turn}',
      'allowed_tools[0].rate_limit.pre',
      /did you mean 'per'/,
    ],
  ])('refuses %s', (_name, text, path, message) => {
    const issues = issuesOf(`allowed_tools:\n  - {tool: t, rate_limit: ${text}}\n`);
    expect(issues).toContainEqual(
      expect.objectContaining({ path, message: expect.stringMatching(message) }),
    );
  });
});

describe('flow gates', () => {
  const YAML = `
allowed_services:
  - service: light.turn_on
    id: lights
allowed_tools:
  - tool: web_search
    id: search
  - calculator
`;

  test('without a flow context (an API invoke, a local intent) no gate applies', () => {
    const { engine } = engineOf(YAML);
    const d = engine.evaluate(svc('light.turn_on', { entity_id: 'light.kitchen' }));
    expect(d.outcome).toBe('allow');
    expect(d.flow).toBeUndefined();
  });

  test('a model call in a turn that read nothing untrusted or private runs, with no verdict', () => {
    const { engine } = engineOf(YAML);
    const d = engine.evaluate(svc('light.turn_on'), {
      flow: flow({ changesState: true, openWorld: true }),
    });
    expect(d).toMatchObject({ outcome: 'allow', allowed: true });
    expect(d.flow).toBeUndefined();
  });

  test('after untrusted content, a state change needs a human, saying why and where it was set', () => {
    const { engine } = engineOf(YAML);
    const d = engine.evaluate(svc('light.turn_on', { entity_id: 'light.kitchen' }), {
      flow: UNTRUSTED_WRITE,
      decisionId: 'd1',
    });
    expect(d).toMatchObject({
      allowed: false,
      outcome: 'confirm',
      decision_id: 'd1',
      rule: { id: 'lights', list: 'allowed_services' },
      flow: [{ gate: 'after_untrusted', action: 'confirm', set_by: 'flow default' }],
      reason:
        "service 'light.turn_on' needs a human's approval: a model asked for it after reading untrusted content (flow after_untrusted: confirm, set by flow default)",
    });
    expect(PolicyDecisionSchema.parse(d)).toEqual(d);
  });

  test('a held call carries the obligations it will run under', () => {
    const { engine } = engineOf(
      'allowed_tools:\n  - tool: web_search\n    input: {domain_allowlist: [a.org]}\n',
    );
    const d = engine.evaluate(tool('web_search', { query: 'x' }), { flow: PRIVATE_OUT });
    expect(d.outcome).toBe('confirm');
    expect(d.obligations).toEqual([{ type: 'filter_result_urls', allow_domains: ['a.org'] }]);
  });

  test('after private data, a call to a tool that reaches outside needs a human', () => {
    const { engine } = engineOf(YAML);
    const d = engine.evaluate(tool('web_search', { query: 'door code 4711' }), {
      flow: PRIVATE_OUT,
    });
    expect(d).toMatchObject({
      outcome: 'confirm',
      rule: { id: 'search' },
      flow: [{ gate: 'after_private', action: 'confirm', set_by: 'flow default' }],
      reason:
        "tool 'web_search' needs a human's approval: a model asked for it after reading private data, for a tool that reaches outside (flow after_private: confirm, set by flow default)",
    });
  });

  test.each([
    ['untrusted read, read-only call', flow({ afterUntrusted: true, openWorld: true })],
    ['state change, nothing untrusted read', flow({ changesState: true, afterPrivate: true })],
    ['private read, closed-world call', flow({ afterPrivate: true, changesState: false })],
    ['open-world call, nothing private read', flow({ openWorld: true, afterUntrusted: false })],
  ])('no gate applies: %s', (_name, ctx) => {
    const { engine } = engineOf(YAML);
    const d = engine.evaluate(tool('web_search'), { flow: ctx });
    expect(d.outcome).toBe('allow');
    expect(d.flow).toBeUndefined();
  });

  test.each([
    [
      'the section denies: deny',
      'flow: {after_untrusted: deny}\n',
      '',
      'deny',
      (sha: string) => `flow.after_untrusted (policy.yaml:1:8 in policy sha256 ${sha})`,
    ],
    [
      'the section allows: allow',
      'flow: {after_untrusted: allow}\n',
      '',
      'allow',
      (sha: string) => `flow.after_untrusted (policy.yaml:1:8 in policy sha256 ${sha})`,
    ],
    [
      'the rule accepts the risk over the section: allow',
      'flow: {after_untrusted: deny}\n',
      '    after_untrusted: allow\n',
      'allow',
      (sha: string) => `lights (policy.yaml:5:5 in policy sha256 ${sha})`,
    ],
    [
      'the rule denies over the section: deny',
      'flow: {after_untrusted: allow}\n',
      '    after_untrusted: deny\n',
      'deny',
      (sha: string) => `lights (policy.yaml:5:5 in policy sha256 ${sha})`,
    ],
    [
      'the rule confirms over an allowing section: confirm',
      'flow: {after_untrusted: allow}\n',
      '    after_untrusted: confirm\n',
      'confirm',
      (sha: string) => `lights (policy.yaml:5:5 in policy sha256 ${sha})`,
    ],
    [
      'the rule accepts the risk over the default: allow',
      '',
      '    after_untrusted: allow\n',
      'allow',
      (sha: string) => `lights (policy.yaml:4:5 in policy sha256 ${sha})`,
    ],
  ])('override order (rule, section, default): %s', (_name, section, ruleKey, outcome, setBy) => {
    const yaml = `${section}allowed_services:\n  - service: light.turn_on\n    id: lights\n${ruleKey}`;
    const { engine } = engineOf(yaml);
    const d = engine.evaluate(svc('light.turn_on'), { flow: UNTRUSTED_WRITE });
    const set_by = setBy(sha12(engine));
    expect(d.outcome).toBe(outcome);
    expect(d.flow).toEqual([{ gate: 'after_untrusted', action: outcome, set_by }]);
  });

  test('a denied call names the gate, the action and the key that set it, and carries no obligation', () => {
    const { engine } = engineOf(
      'flow:\n  after_private: deny\nallowed_tools:\n  - tool: web_search\n    id: search\n    input: {domain_allowlist: [a.org]}\n',
    );
    const d = engine.evaluate(tool('web_search', { query: 'x' }), { flow: PRIVATE_OUT });
    expect(d).toMatchObject({ allowed: false, outcome: 'deny', rule: { id: 'search' } });
    expect(d.obligations).toEqual([]);
    expect(d.reason).toBe(
      `tool 'web_search' is denied: a model asked for it after reading private data, for a tool that reaches outside (flow after_private: deny, set by flow.after_private (policy.yaml:2:3 in policy sha256 ${sha12(engine)}))`,
    );
  });

  test('an accepted risk is said in the reason of the allowed call, for the audit row', () => {
    const { engine } = engineOf(
      'allowed_services:\n  - service: light.turn_on\n    id: lights\n    after_untrusted: allow\n',
    );
    const d = engine.evaluate(svc('light.turn_on'), { flow: UNTRUSTED_WRITE });
    const sha = sha12(engine);
    expect(d.outcome).toBe('allow');
    expect(d.reason).toBe(
      `allowed by lights (policy.yaml:2:5 in policy sha256 ${sha}); after_untrusted accepted by lights (policy.yaml:4:5 in policy sha256 ${sha})`,
    );
  });

  test.each<[string, string, string, FlowVerdict['action'][]]>([
    [
      'deny wins over confirm',
      'after_untrusted: deny',
      'after_private: confirm',
      ['deny', 'confirm'],
    ],
    ['deny wins over allow', 'after_untrusted: allow', 'after_private: deny', ['allow', 'deny']],
    [
      'confirm wins over allow',
      'after_untrusted: allow',
      'after_private: confirm',
      ['allow', 'confirm'],
    ],
    ['both allow: allowed', 'after_untrusted: allow', 'after_private: allow', ['allow', 'allow']],
  ])('both gates apply: %s, and both verdicts are listed', (_name, u, p, actions) => {
    const { engine } = engineOf(`allowed_tools:\n  - tool: notes\n    ${u}\n    ${p}\n`);
    const d = engine.evaluate(tool('notes'), { flow: BOTH });
    const rank = { allow: 0, confirm: 1, deny: 2 };
    const winner = actions.reduce((a, b) => (rank[b] > rank[a] ? b : a));
    expect(d.outcome).toBe(winner);
    expect(d.flow?.map((v) => [v.gate, v.action])).toEqual([
      ['after_untrusted', actions[0]],
      ['after_private', actions[1]],
    ]);
  });

  test('the reason names only the gates whose action decided', () => {
    const { engine } = engineOf(
      'allowed_tools:\n  - tool: notes\n    after_untrusted: deny\n    after_private: confirm\n',
    );
    const d = engine.evaluate(tool('notes'), { flow: BOTH });
    expect(d.reason).toContain('after reading untrusted content (flow after_untrusted: deny');
    expect(d.reason).not.toContain('after_private');
  });

  test('both gates confirming are both named', () => {
    const { engine } = engineOf('allowed_tools: [notes]\n');
    const d = engine.evaluate(tool('notes'), { flow: BOTH });
    expect(d.outcome).toBe('confirm');
    expect(d.reason).toBe(
      "tool 'notes' needs a human's approval: a model asked for it after reading untrusted content (flow after_untrusted: confirm, set by flow default); and a model asked for it after reading private data, for a tool that reaches outside (flow after_private: confirm, set by flow default)",
    );
  });

  test('private_match: shared_words gates only an input that shares words with what was read', () => {
    const { engine } = engineOf(
      'flow: {private_match: shared_words}\nallowed_tools: [web_search]\n',
    );
    const apart = engine.evaluate(tool('web_search'), {
      flow: { ...PRIVATE_OUT, sharesPrivateWords: false },
    });
    expect(apart.outcome).toBe('allow');
    expect(apart.flow).toBeUndefined();
    const shared = engine.evaluate(tool('web_search'), { flow: PRIVATE_OUT });
    expect(shared.outcome).toBe('confirm');
    expect(shared.reason).toContain(
      'after reading private data, with words of that data in its input, for a tool that reaches outside',
    );
  });

  test('private_match: any (the default) gates whatever the input', () => {
    const { engine } = engineOf('allowed_tools: [web_search]\n');
    const d = engine.evaluate(tool('web_search'), {
      flow: { ...PRIVATE_OUT, sharesPrivateWords: false },
    });
    expect(d.outcome).toBe('confirm');
  });

  test('a human approved the call: a confirm gate lets it run and stays in the verdicts', () => {
    const { engine } = engineOf(YAML);
    const d = engine.evaluate(svc('light.turn_on'), { flow: UNTRUSTED_WRITE, confirmed: true });
    expect(d).toMatchObject({
      outcome: 'allow',
      flow: [{ gate: 'after_untrusted', action: 'confirm', set_by: 'flow default' }],
    });
    expect(d.reason).toMatch(/; after_untrusted approved by a human \(set by flow default\)$/);
  });

  test("a human's approval does not lift a deny gate", () => {
    const { engine } = engineOf(
      'flow: {after_untrusted: deny}\nallowed_services: [light.turn_on]\n',
    );
    const d = engine.evaluate(svc('light.turn_on'), { flow: UNTRUSTED_WRITE, confirmed: true });
    expect(d.outcome).toBe('deny');
  });

  test('deny rules and entity rules decide before any gate: a denied call carries no verdict', () => {
    const { engine } = engineOf(`
flow: {after_untrusted: allow}
allowed_services: [homeassistant.turn_on, lock.unlock]
denied_services: [lock.*]
denied_entities: [switch.fridge]
`);
    for (const call of [
      svc('lock.unlock', { entity_id: 'lock.front' }),
      svc('homeassistant.turn_on', { entity_id: 'lock.front' }),
      svc('homeassistant.turn_on', { entity_id: 'switch.fridge' }),
    ]) {
      const d = engine.evaluate(call, { flow: UNTRUSTED_WRITE });
      expect(d.outcome).toBe('deny');
      expect(d.flow).toBeUndefined();
    }
  });

  test('a call no rule allows is denied by default; the gates never widen anything', () => {
    const { engine } = engineOf('flow: {after_untrusted: allow, after_private: allow}\n');
    const d = engine.evaluate(tool('shell'), { flow: BOTH });
    expect(d).toMatchObject({ outcome: 'deny', rule: { id: 'default_deny' } });
  });

  test("the rule's own confirm still applies after a gate that allows", () => {
    const { engine } = engineOf(
      'allowed_services:\n  - {service: cover.open_cover, confirm: true, after_untrusted: allow}\n',
    );
    const d = engine.evaluate(svc('cover.open_cover'), { flow: UNTRUSTED_WRITE });
    expect(d.outcome).toBe('confirm');
    expect(d.reason).toContain('confirm: true on');
    expect(d.flow).toEqual([expect.objectContaining({ gate: 'after_untrusted', action: 'allow' })]);
  });

  test("a call gated or denied by a flow rule uses none of its rule's window budget", () => {
    const { engine } = engineOf(
      'allowed_services:\n  - {service: light.turn_on, rate_limit: 1/1h}\n',
    );
    for (let i = 0; i < 3; i++) {
      expect(engine.evaluate(svc('light.turn_on'), { flow: UNTRUSTED_WRITE }).outcome).toBe(
        'confirm',
      );
    }
    expect(engine.evaluate(svc('light.turn_on')).outcome).toBe('allow');
    expect(engine.evaluate(svc('light.turn_on')).outcome).toBe('rate_limited');
  });

  test.each([
    ['call_service', tool('call_service', { domain: 'light', service: 'turn_on' })],
    ['the service id as tool', tool('light.turn_on', { target: { entity_id: 'light.a' } })],
    ['the service shape', svc('light.turn_on', { entity_id: 'light.a' })],
  ])('service calls are gated the same whatever their shape: %s', (_name, call) => {
    const { engine } = engineOf(YAML);
    expect(engine.evaluate(call, { flow: UNTRUSTED_WRITE }).outcome).toBe('confirm');
  });

  test('a rule matched through a glob cites its own key', () => {
    const { engine } = engineOf(
      "allowed_services:\n  - service: 'light.*'\n    id: all-lights\n    after_untrusted: allow\n",
    );
    const d = engine.evaluate(svc('light.toggle'), { flow: UNTRUSTED_WRITE });
    expect(d.outcome).toBe('allow');
    expect(d.flow?.[0]?.set_by).toBe(
      `all-lights (policy.yaml:4:5 in policy sha256 ${sha12(engine)})`,
    );
  });

  test('the first allow rule that accepts the call decides its gates', () => {
    const { engine } = engineOf(`
allowed_tools:
  - tool: web_search
    input: {query: {max_length: 20}}
    after_private: allow
  - tool: web_search
`);
    expect(
      engine.evaluate(tool('web_search', { query: 'short' }), { flow: PRIVATE_OUT }).outcome,
    ).toBe('allow');
    const long = tool('web_search', { query: 'a query longer than twenty' });
    expect(engine.evaluate(long, { flow: PRIVATE_OUT }).outcome).toBe('confirm');
  });
});

describe('rate_limit per turn', () => {
  const YAML =
    'allowed_tools:\n  - {tool: web_search, id: search, rate_limit: 2/turn, after_private: allow}\n';

  test('counts allowed calls in the turn by rule id; past N the call is rate-limited, with no wait', () => {
    const { engine } = engineOf(YAML);
    const turnCounts = new Map<string, number>();
    const ctx = { flow: flow({ turnCounts }) };
    expect(engine.evaluate(tool('web_search'), ctx).outcome).toBe('allow');
    expect(engine.evaluate(tool('web_search'), ctx).outcome).toBe('allow');
    expect(turnCounts.get('search')).toBe(2);
    const third = engine.evaluate(tool('web_search'), ctx);
    expect(third).toMatchObject({
      allowed: false,
      outcome: 'rate_limited',
      rule: { id: 'search' },
    });
    expect(third.retry_after_ms).toBeUndefined();
    expect(third.reason).toBe(
      `tool 'web_search' is rate-limited: search (policy.yaml:2:5 in policy sha256 ${sha12(engine)}) allows 2 calls per turn, and this turn has made 2; it may run again in a new turn`,
    );
    expect(turnCounts.get('search')).toBe(2);
    // a new turn starts from zero
    expect(
      engine.evaluate(tool('web_search'), { flow: flow({ turnCounts: new Map() }) }).outcome,
    ).toBe('allow');
  });

  test('without a flow context, or without counts, a per-turn limit does not apply', () => {
    const { engine } = engineOf(YAML);
    for (let i = 0; i < 5; i++) {
      expect(engine.evaluate(tool('web_search')).outcome).toBe('allow');
      expect(engine.evaluate(tool('web_search'), { flow: flow() }).outcome).toBe('allow');
    }
  });

  test('explain does not count; denied, gated and confirmed-only calls are not counted', () => {
    const { engine } = engineOf(
      'allowed_tools:\n  - {tool: notes, id: n, rate_limit: 1/turn, input: {text: {max_length: 3}}}\n',
    );
    const turnCounts = new Map<string, number>();
    expect(
      engine.explain(tool('notes', { text: 'a' }), { flow: flow({ turnCounts }) }).decision.outcome,
    ).toBe('allow');
    expect(
      engine.evaluate(tool('notes', { text: 'long' }), { flow: flow({ turnCounts }) }).outcome,
    ).toBe('deny');
    const gated = flow({ turnCounts, afterUntrusted: true, changesState: true });
    expect(engine.evaluate(tool('notes', { text: 'a' }), { flow: gated }).outcome).toBe('confirm');
    expect(turnCounts.size).toBe(0);
    expect(
      engine.evaluate(tool('notes', { text: 'a' }), { flow: gated, confirmed: true }).outcome,
    ).toBe('allow');
    expect(turnCounts.get('n')).toBe(1);
    expect(
      engine.evaluate(tool('notes', { text: 'a' }), { flow: flow({ turnCounts }) }).outcome,
    ).toBe('rate_limited');
  });

  test('a window limit and a per-turn limit together: each holds, and both count an allowed call', () => {
    const { engine, clock } = engineOf(
      'allowed_tools:\n  - {tool: t, id: t, rate_limit: [2/1h, 3/turn]}\n',
    );
    const turnCounts = new Map<string, number>();
    const ctx = { flow: flow({ turnCounts }) };
    expect(engine.evaluate(tool('t'), ctx).outcome).toBe('allow');
    expect(engine.evaluate(tool('t'), ctx).outcome).toBe('allow');
    const windowed = engine.evaluate(tool('t'), ctx);
    expect(windowed).toMatchObject({ outcome: 'rate_limited', retry_after_ms: 3_600_000 });
    expect(turnCounts.get('t')).toBe(2);
    clock.now = 3_600_000;
    expect(engine.evaluate(tool('t'), ctx).outcome).toBe('allow');
    clock.now = 7_200_000;
    const perTurn = engine.evaluate(tool('t'), ctx);
    expect(perTurn.outcome).toBe('rate_limited');
    expect(perTurn.reason).toMatch(/allows 3 calls per turn/);
    // an API invoke (no flow context) meets the window limit only
    expect(engine.evaluate(tool('t')).outcome).toBe('allow');
  });

  test('each rule counts apart in the same turn', () => {
    const { engine } = engineOf(
      'allowed_tools:\n  - {tool: a, rate_limit: 1/turn}\n  - {tool: b, id: bee, rate_limit: 1/turn}\n',
    );
    const turnCounts = new Map<string, number>();
    const ctx = { flow: flow({ turnCounts }) };
    expect(engine.evaluate(tool('a'), ctx).outcome).toBe('allow');
    expect(engine.evaluate(tool('b'), ctx).outcome).toBe('allow');
    expect([...turnCounts]).toEqual([
      ['allowed_tools[0]', 1],
      ['bee', 1],
    ]);
  });
});

describe('explain with a flow context', () => {
  test('the trace shows each gate of the matched rule: applied with its verdict, or why not', () => {
    const { engine } = engineOf(
      'allowed_services:\n  - service: light.turn_on\n    id: lights\n    after_private: deny\n',
    );
    const { decision, trace } = engine.explain(svc('light.turn_on'), { flow: UNTRUSTED_WRITE });
    expect(decision.outcome).toBe('confirm');
    expect(trace).toEqual([
      { rule: expect.objectContaining({ id: 'lights' }), result: 'matched' },
      {
        rule: expect.objectContaining({ id: 'lights' }),
        result: 'matched',
        gate: 'after_untrusted',
        detail: 'confirm, set by flow default: untrusted content was read; the call changes state',
      },
      {
        rule: expect.objectContaining({ id: 'lights' }),
        result: 'not_matched',
        gate: 'after_private',
        detail: 'the turn read no private data',
      },
    ]);
  });

  test.each([
    [flow({ afterUntrusted: true }), 'after_untrusted', 'the call does not change state'],
    [
      flow({ afterPrivate: true }),
      'after_private',
      'the tool does not reach outside (not open-world)',
    ],
    [
      flow({ afterPrivate: true, openWorld: true, sharesPrivateWords: false }),
      'after_private',
      'the input shares no word with the private data read (private_match: shared_words)',
    ],
  ])('a gate that does not apply says why (%#)', (ctx, gate, why) => {
    const { engine } = engineOf('flow: {private_match: shared_words}\nallowed_tools: [t]\n');
    const { trace } = engine.explain(tool('t'), { flow: ctx });
    expect(trace).toContainEqual(
      expect.objectContaining({ gate, result: 'not_matched', detail: why }),
    );
  });

  test('without a flow context the trace has no gate steps', () => {
    const { engine } = engineOf('allowed_tools: [t]\n');
    expect(engine.explain(tool('t')).trace).toEqual([
      { rule: expect.objectContaining({ id: 'allowed_tools[0]' }), result: 'matched' },
    ]);
  });
});
