import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { dump } from 'js-yaml';
import { compilePolicy, PolicyEngine, PolicyLoadError } from '../../../src/policy/index.js';
import { DECISION_OUTCOMES, DEFAULT_DENY_RULE_ID } from '../../../src/policy/decision.js';
import { compileGlob } from '../../../src/policy/glob.js';
import { SlidingWindowLimiter } from '../../../src/policy/rate-limit.js';
import { engineOf, policyOf, svc, tool } from './helpers.js';

const entityId = fc.stringMatching(/^light\.[a-d]{1,2}$/);

describe('properties', () => {
  test('an allow rule covers a call exactly when every target id is listed', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(entityId, { minLength: 1, maxLength: 6 }),
        fc.array(entityId, { minLength: 1, maxLength: 4 }),
        (listed, called) => {
          const { engine } = engineOf(
            `allowed_services:\n  - service: light.turn_on\n    target:\n      entity_id: ${JSON.stringify(listed)}\n`,
          );
          const allowed = engine.evaluate(svc('light.turn_on', { entity_id: called })).allowed;
          expect(allowed).toBe(called.every((id) => listed.includes(id)));
        },
      ),
    );
  });

  test('a denied entity is caught however it is cased, padded, listed or comma-joined', () => {
    const { engine } = engineOf(
      'allowed_services: [switch.turn_off]\ndenied_services:\n  - service: switch.turn_off\n    target: {entity_id: switch.fridge}\n',
    );
    const disguise = fc
      .tuple(
        fc.array(fc.boolean(), { minLength: 13, maxLength: 13 }),
        fc.stringMatching(/^ {0,3}$/),
        fc.stringMatching(/^ {0,3}$/),
      )
      .map(
        ([upper, pre, post]) =>
          pre +
          [...'switch.fridge'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('') +
          post,
      );
    const others = fc.array(fc.stringMatching(/^switch\.[a-e]{1,4}$/), { maxLength: 3 });
    fc.assert(
      fc.property(
        disguise,
        others,
        fc.nat(3),
        fc.boolean(),
        fc.boolean(),
        (fridge, rest, at, joined, inData) => {
          const ids = [...rest.slice(0, at), fridge, ...rest.slice(at)];
          const value = joined ? ids.join(',') : ids;
          const call = inData
            ? svc('switch.turn_off', undefined, { entity_id: value })
            : svc('switch.turn_off', { entity_id: value });
          expect(engine.evaluate(call).outcome).toBe('deny');
        },
      ),
    );
  });

  test('an unconditional deny wins over any mix of allow rules for the same tool', () => {
    const allowRule = fc.constantFrom(
      '  - t',
      '  - {tool: t, confirm: true}',
      '  - {tool: t, input: {a: 1}}',
      '  - {tool: t, rate_limit: 1/1h}',
    );
    fc.assert(
      fc.property(fc.array(allowRule, { maxLength: 4 }), fc.anything(), (allows, input) => {
        const yaml = `allowed_tools:\n${allows.join('\n')}\ndenied_tools: [t]\n`;
        const { engine } = engineOf(allows.length ? yaml : 'denied_tools: [t]\n');
        expect(engine.evaluate(tool('t', input))).toMatchObject({
          outcome: 'deny',
          rule: { list: 'denied_tools' },
        });
      }),
    );
  });

  test('evaluate never throws and always returns a well-formed decision, whatever the call', () => {
    const { engine } = engineOf(`
allowed_services:
  - service: light.turn_on
    target: {entity_id: "light.*"}
    data: {brightness: {max: 10}, mode: {fields: {x: [1]}}}
denied_services:
  - service: "light.*"
    data: {flash: {glob: "l*"}}
allowed_tools:
  - tool: t
    input: {a: {type: integer}, b: {pattern: "x+"}}
`);
    const call = fc.oneof(
      fc.record({ tool: fc.constantFrom('t', 'call_service', 'nope'), input: fc.anything() }),
      fc.record({
        domain: fc.oneof(fc.constant('light'), fc.anything()),
        service: fc.oneof(fc.constant('turn_on'), fc.anything()),
        target: fc.anything(),
        data: fc.anything(),
      }),
      fc.anything(),
    );
    fc.assert(
      fc.property(call, (c) => {
        const d = engine.evaluate(c as never, { decisionId: 'p' });
        expect(DECISION_OUTCOMES).toContain(d.outcome);
        expect(d.allowed).toBe(d.outcome === 'allow');
        expect(typeof d.reason).toBe('string');
        expect(d.decision_id).toBe('p');
      }),
      { numRuns: 500 },
    );
  });

  test('explain decides the same as evaluate', () => {
    const policy = policyOf(`
allowed_services:
  - service: light.turn_on
    target: {entity_id: [light.a, light.b]}
  - {service: "light.*", confirm: true}
denied_services:
  - service: light.turn_off
    target: {entity_id: light.c}
`);
    const call = fc.record({
      domain: fc.constant('light'),
      service: fc.constantFrom('turn_on', 'turn_off', 'toggle'),
      target: fc.record({
        entity_id: fc.array(fc.constantFrom('light.a', 'light.b', 'light.c', 'all')),
      }),
    });
    fc.assert(
      fc.property(call, fc.boolean(), (c, confirmed) => {
        const engine = new PolicyEngine(policy);
        const explained = engine.explain(c, { confirmed });
        const decided = engine.evaluate(c, { confirmed });
        expect(explained.decision).toEqual(decided);
        if (decided.rule.id !== DEFAULT_DENY_RULE_ID) {
          // a deny rule that matched through an entity names it (`target`), as the decision does
          const last = explained.trace.at(-1);
          expect(last).toMatchObject({ rule: decided.rule, result: 'matched' });
          expect(last?.target).toBe(decided.matched_target?.entity_id);
        } else {
          expect(explained.trace.every((step) => step.result !== 'matched')).toBe(true);
        }
      }),
    );
  });

  test('flow rules only narrow: a model call the policy allows is one it allows without them', () => {
    const action = fc.constantFrom('allow', 'confirm', 'deny', undefined);
    const key = (name: string, a: string | undefined) => (a === undefined ? '' : `, ${name}: ${a}`);
    const rules = fc.record({
      section: fc.record({ u: action, p: action, m: fc.constantFrom('any', 'shared_words') }),
      lamp: fc.record({ u: action, p: action, confirm: fc.boolean() }),
      search: fc.record({ u: action, p: action, turn: fc.nat(2) }),
    });
    const flowCtx = fc.record({
      afterUntrusted: fc.boolean(),
      afterPrivate: fc.boolean(),
      changesState: fc.boolean(),
      openWorld: fc.boolean(),
      sharesPrivateWords: fc.boolean(),
    });
    const call = fc.constantFrom(
      svc('light.turn_on', { entity_id: 'light.a' }),
      svc('light.turn_on', { entity_id: 'light.z' }),
      svc('lock.unlock', { entity_id: 'lock.front' }),
      tool('web_search', { query: 'x' }),
      tool('shell', {}),
    );
    fc.assert(
      fc.property(rules, flowCtx, call, fc.boolean(), (r, ctx, c, confirmed) => {
        const flow = `flow: {private_match: ${r.section.m}${key('after_untrusted', r.section.u)}${key('after_private', r.section.p)}}`;
        const lamp = `{service: light.turn_on, target: {entity_id: light.a}, confirm: ${r.lamp.confirm}${key('after_untrusted', r.lamp.u)}${key('after_private', r.lamp.p)}}`;
        const limit = r.search.turn === 0 ? '' : `, rate_limit: ${r.search.turn}/turn`;
        const search = `{tool: web_search${limit}${key('after_untrusted', r.search.u)}${key('after_private', r.search.p)}}`;
        const engine = new PolicyEngine(
          policyOf(
            `${flow}\nallowed_services: [${lamp}, lock.unlock]\ndenied_services: [lock.*]\nallowed_tools: [${search}]\n`,
          ),
        );
        const turnCounts = new Map<string, number>();
        const asModel = engine.explain(c, { confirmed, flow: { ...ctx, turnCounts } }).decision;
        const alone = engine.explain(c, { confirmed }).decision;
        if (asModel.allowed) expect(alone.allowed).toBe(true);
        // the same rule decides; the gates that applied are listed, each with where it was set
        expect(asModel.rule).toEqual(alone.rule);
        for (const v of asModel.flow ?? [])
          expect(v.set_by).toMatch(
            /^(flow default|\S+ \(policy\.yaml:\d+:\d+ in policy sha256 [0-9a-f]{12}\))$/,
          );
        if (alone.outcome === 'deny') expect(asModel.outcome).toBe('deny');
      }),
      { numRuns: 400 },
    );
  });

  test('the sliding window admits exactly what a reference model admits', () => {
    const steps = fc.array(fc.nat(5_000), { minLength: 1, maxLength: 200 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 20_000 }),
        steps,
        (limit, windowMs, gaps) => {
          const limiter = new SlidingWindowLimiter(limit, windowMs);
          const admitted: number[] = [];
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const inWindow = admitted.filter((t) => t > now - windowMs).length;
            const expectAdmit = inWindow < limit;
            expect(limiter.waitMs(now) === 0).toBe(expectAdmit);
            if (expectAdmit) {
              limiter.record(now);
              admitted.push(now);
            }
          }
        },
      ),
    );
  });

  test('a glob without wildcards matches only itself; a trailing * matches every extension', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }).filter((s) => !/[*?]/.test(s)),
        fc.string({ maxLength: 6 }),
        (literal, tail) => {
          expect(compileGlob(literal).test(literal)).toBe(true);
          expect(compileGlob(literal).test(literal + (tail || 'x'))).toBe(false);
          expect(compileGlob(`${literal}*`).test(literal + tail)).toBe(true);
        },
      ),
    );
  });

  test('the linear glob matcher agrees with the equivalent RegExp on short texts', () => {
    const piece = fc.constantFrom('*', '?', 'a', 'b', '.', '\n');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
        fc
          .array(fc.constantFrom('a', 'b', 'A', '.', '\n'), { maxLength: 10 })
          .map((t) => t.join('')),
        (glob, text) => {
          const source = [...glob]
            .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch === '.' ? '\\.' : ch))
            .join('');
          expect(compileGlob(glob).test(text)).toBe(new RegExp(`^${source}$`, 's').test(text));
          expect(compileGlob(glob, { ignoreCase: true }).test(text)).toBe(
            new RegExp(`^${source}$`, 'si').test(text),
          );
        },
      ),
    );
  });

  test('compiling any YAML value either yields a policy or throws PolicyLoadError, nothing else', () => {
    const key = fc.constantFrom(
      'version',
      'allowed_services',
      'denied_services',
      'allowed_tools',
      'denied_tools',
      'service',
      'tool',
      'target',
      'data',
      'input',
      'entity_id',
      'rate_limit',
      'confirm',
      'min',
      'fields',
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (doc) => {
        try {
          const policy = compilePolicy(dump(doc));
          expect(policy.sha256).toMatch(/^[0-9a-f]{64}$/);
        } catch (err) {
          expect(err).toBeInstanceOf(PolicyLoadError);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('random YAML text never crashes the loader: a policy or a PolicyLoadError, nothing else', () => {
    const base = `version: 1
allowed_services:
  - service: light.turn_on
    target: {entity_id: [light.kitchen, "light.hall_*"]}
    data: {brightness_pct: {min: 1, max: 80}}
allowed_tools:
  - calculator
  - tool: web_search
    input: {domain_allowlist: [en.wikipedia.org], max_results: 5}
denied_tools: [shell]
`;
    const mutated = fc
      .array(
        fc.record({
          at: fc.nat(base.length),
          cut: fc.nat(6),
          text: fc.constantFrom(
            '',
            ' ',
            '  ',
            '\n',
            ':',
            '- ',
            '[',
            ']',
            '{',
            '}',
            '"',
            "'",
            '#',
            '&a',
            '*a',
            '!!str',
            '\t',
            'x',
          ),
        }),
        { maxLength: 6 },
      )
      .map((edits) =>
        edits.reduce((t, e) => t.slice(0, e.at) + e.text + t.slice(e.at + e.cut), base),
      );
    const text = fc.oneof(
      mutated,
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 80 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        try {
          const policy = compilePolicy(t);
          expect(policy.sha256).toMatch(/^[0-9a-f]{64}$/);
        } catch (err) {
          expect(err).toBeInstanceOf(PolicyLoadError);
          expect((err as PolicyLoadError).issues.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1500 },
    );
  });

  test('a call that no rule matches is denied, and whatever is not denied was matched by an allow rule', () => {
    const name = fc.constantFrom('notes', 'weather', 'shell', 'timer', 'clock');
    const constraint = fc.oneof(
      fc.constant({}),
      fc.record({ a: fc.constantFrom(1, 'x', { max: 3 }, { pattern: '[a-z]+' }) }),
    );
    const toolRule = fc.record({
      tool: name,
      input: constraint,
      confirm: fc.boolean(),
    });
    const serviceRule = fc.record({
      service: fc.constantFrom('light.turn_on', 'light.turn_off', 'switch.toggle'),
      target: fc.option(
        fc.record({ entity_id: fc.constantFrom('light.a', ['light.a', 'light.b*']) }),
        {
          nil: undefined,
        },
      ),
    });
    const policyDoc = fc.record({
      allowed_tools: fc.array(toolRule, { maxLength: 4 }),
      allowed_services: fc.array(serviceRule, { maxLength: 3 }),
      denied_tools: fc.array(fc.record({ tool: name }), { maxLength: 1 }),
    });
    const call = fc.oneof(
      fc.record({
        tool: name,
        input: fc.oneof(fc.constant({}), fc.record({ a: fc.anything() }), fc.anything()),
      }),
      fc.record({
        domain: fc.constantFrom('light', 'switch', 'lock'),
        service: fc.constantFrom('turn_on', 'turn_off', 'toggle', 'unlock'),
        target: fc.record({
          entity_id: fc.constantFrom('light.a', 'light.b2', 'all', 'lock.front'),
        }),
      }),
    );
    fc.assert(
      fc.property(policyDoc, call, (doc, c) => {
        const policy = compilePolicy(dump(doc));
        const d = new PolicyEngine(policy).evaluate(c, { confirmed: true });
        const id = 'tool' in c ? c.tool : `${c.domain}.${c.service}`;
        const subjects = policy.rules.filter((r) => r.effect === 'allow').map((r) => r.subject);
        if (!subjects.includes(id)) {
          expect(d.outcome).toBe('deny');
          expect([
            'default_deny',
            ...policy.rules.filter((r) => r.effect === 'deny').map((r) => r.ref.id),
          ]).toContain(d.rule.id);
        }
        if (d.outcome !== 'deny') {
          const rule = policy.rules.find((r) => r.ref.id === d.rule.id);
          expect(rule).toMatchObject({ effect: 'allow', subject: id });
        }
      }),
      { numRuns: 1000 },
    );
  });
});
