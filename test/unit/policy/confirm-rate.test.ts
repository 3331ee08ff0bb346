import { describe, expect, test } from 'vitest';
import { PolicyEngine } from '../../../src/policy/index.js';
import { engineOf, policyOf, svc, tool } from './helpers.js';

describe('confirm: true', () => {
  const { engine } = engineOf(`
allowed_services:
  - service: cover.open_cover
    id: garage
    target: {entity_id: cover.garage}
    confirm: true
allowed_tools:
  - tool: web_search
    confirm: true
    input: {domain_allowlist: [a.org]}
`);

  test('an unconfirmed call needs confirmation and is not allowed', () => {
    const d = engine.evaluate(svc('cover.open_cover', { entity_id: 'cover.garage' }), {
      decisionId: 'd1',
    });
    expect(d).toMatchObject({
      allowed: false,
      outcome: 'confirm',
      rule: { id: 'garage' },
      decision_id: 'd1',
      reason: `service 'cover.open_cover' needs a human's approval before it runs (confirm: true on garage (policy.yaml:3:5 in policy sha256 ${engine.policy.sha256.slice(0, 12)}))`,
    });
  });

  test('the same call is allowed once a human confirmed it', () => {
    const d = engine.evaluate(svc('cover.open_cover', { entity_id: 'cover.garage' }), {
      confirmed: true,
    });
    expect(d).toMatchObject({ allowed: true, outcome: 'allow', rule: { id: 'garage' } });
  });

  test('confirmation does not widen the rule: a call outside it stays denied', () => {
    const d = engine.evaluate(svc('cover.open_cover', { entity_id: 'cover.front' }), {
      confirmed: true,
    });
    expect(d.outcome).toBe('deny');
  });

  test('a confirmation-required decision already carries the obligations that will apply', () => {
    const d = engine.evaluate(tool('web_search', { query: 'x' }));
    expect(d.outcome).toBe('confirm');
    expect(d.obligations).toEqual([{ type: 'filter_result_urls', allow_domains: ['a.org'] }]);
  });
});

describe('rate_limit', () => {
  const YAML = `
allowed_tools:
  - tool: calendar_read
    id: cal
    rate_limit: {calls: 2, per: 1m}
  - tool: calculator
`;

  test('allows `calls` calls in any window of `per`, then rate-limits with retry_after_ms', () => {
    const { engine, clock } = engineOf(YAML);
    clock.now = 1_000;
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('allow');
    clock.now = 21_000;
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('allow');
    clock.now = 30_000;
    const limited = engine.evaluate(tool('calendar_read'), { decisionId: 'x' });
    expect(limited).toMatchObject({
      allowed: false,
      outcome: 'rate_limited',
      rule: { id: 'cal' },
      retry_after_ms: 31_000,
      decision_id: 'x',
    });
    expect(limited.reason).toMatch(
      /^tool 'calendar_read' is rate-limited: cal \(policy\.yaml:3:5 in policy sha256 [0-9a-f]{12}\) allows 2 calls per 60000 ms; retry in 31000 ms$/,
    );
    clock.now = 60_999;
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('rate_limited');
    clock.now = 61_000;
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('allow');
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('rate_limited');
  });

  test('rate-limited and denied calls do not count against the limit', () => {
    const { engine, clock } = engineOf(YAML);
    engine.evaluate(tool('calendar_read'));
    engine.evaluate(tool('calendar_read'));
    for (let i = 0; i < 5; i++)
      expect(engine.evaluate(tool('calendar_read')).outcome).toBe('rate_limited');
    clock.now = 60_000;
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('allow');
  });

  test('other rules are not limited by it', () => {
    const { engine } = engineOf(YAML);
    for (let i = 0; i < 10; i++) engine.evaluate(tool('calendar_read'));
    expect(engine.evaluate(tool('calculator')).outcome).toBe('allow');
  });

  test('explain reports the limit but does not consume it', () => {
    const { engine } = engineOf(YAML);
    for (let i = 0; i < 5; i++)
      expect(engine.explain(tool('calendar_read')).decision.outcome).toBe('allow');
    engine.evaluate(tool('calendar_read'));
    engine.evaluate(tool('calendar_read'));
    expect(engine.explain(tool('calendar_read')).decision.outcome).toBe('rate_limited');
  });

  test('confirmation comes before the limit: an unconfirmed call does not use up the limit', () => {
    const { engine } = engineOf('allowed_tools:\n  - {tool: t, confirm: true, rate_limit: 1/1h}\n');
    expect(engine.evaluate(tool('t')).outcome).toBe('confirm');
    expect(engine.evaluate(tool('t')).outcome).toBe('confirm');
    expect(engine.evaluate(tool('t'), { confirmed: true }).outcome).toBe('allow');
    expect(engine.evaluate(tool('t'), { confirmed: true }).outcome).toBe('rate_limited');
  });

  test.each([
    ['"5/1m" shorthand', '5/1m', 5, 60_000],
    ['object form with hours', '{calls: 3, per: 2h}', 3, 7_200_000],
    ['milliseconds', '{calls: 1, per: 250ms}', 1, 250],
    ['days', '10/1d', 10, 86_400_000],
  ])('rate_limit %s allows exactly that many calls per window', (_name, spec, calls, windowMs) => {
    const { engine, clock } = engineOf(`allowed_tools:\n  - {tool: t, rate_limit: ${spec}}\n`);
    for (let i = 0; i < calls; i++) expect(engine.evaluate(tool('t')).outcome).toBe('allow');
    expect(engine.evaluate(tool('t')).retry_after_ms).toBe(windowMs);
    clock.now = windowMs;
    expect(engine.evaluate(tool('t')).outcome).toBe('allow');
  });

  test('swap keeps the count of a rule whose meaning did not change', () => {
    const { engine } = engineOf(YAML);
    engine.evaluate(tool('calendar_read'));
    engine.evaluate(tool('calendar_read'));
    engine.swap(policyOf(`# an unrelated edit\n${YAML}  - tool: web_search\n`));
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('rate_limited');
  });

  test('swap starts a fresh count when the limit itself changed', () => {
    const { engine } = engineOf(YAML);
    engine.evaluate(tool('calendar_read'));
    engine.evaluate(tool('calendar_read'));
    engine.swap(policyOf(YAML.replace('calls: 2', 'calls: 3')));
    expect(engine.evaluate(tool('calendar_read')).outcome).toBe('allow');
  });

  test('the default clock is Date.now', () => {
    const engine = new PolicyEngine(policyOf('allowed_tools:\n  - {tool: t, rate_limit: 1/1h}\n'));
    engine.evaluate(tool('t'));
    const retry = engine.evaluate(tool('t')).retry_after_ms ?? 0;
    expect(retry).toBeGreaterThan(3_590_000);
    expect(retry).toBeLessThanOrEqual(3_600_000);
  });
});
