import { describe, expect, test } from 'vitest';
import { unknownToolWarnings } from '../../../src/policy/index.js';
import { DEFAULT_DENY_RULE_ID } from '../../../src/policy/decision.js';
import { engineOf, issuesOf, policyOf, tool } from './helpers.js';

// ADR 0092: a rule names a tool (all its actions) or, with `actions:`, some of them.

const POLICY = `
allowed_tools:
  - tool: notes
    id: notes-read
    actions: [read, list]
  - tool: lights
    id: lights-any
  - tool: locks.status
    id: lock-status
denied_tools:
  - tool: lights
    id: no-unlock
    actions: [unlock]
`;

const { engine } = engineOf(POLICY);
const decided = (name: string, ctx?: { action?: boolean }) => {
  const d = engine.evaluate(tool(name, {}), ctx);
  return { outcome: d.outcome, rule: d.rule.id === DEFAULT_DENY_RULE_ID ? null : d.rule.id };
};

describe('tool rules with actions', () => {
  test.each([
    ['a listed action is allowed by its rule', 'notes.read', 'allow', 'notes-read'],
    ['the other listed action too', 'notes.list', 'allow', 'notes-read'],
    ['an action the rule does not list is denied by default', 'notes.write', 'deny', null],
    ["the tool's bare name is not one of the listed actions", 'notes', 'deny', null],
    ['a rule without actions covers every action of its tool', 'lights.on', 'allow', 'lights-any'],
    ['a deny on one action wins over the tool-wide allow', 'lights.unlock', 'deny', 'no-unlock'],
    ['a full name written alone names that action', 'locks.status', 'allow', 'lock-status'],
    ['and no other action of its tool', 'locks.open', 'deny', null],
  ])('%s (%s)', (_name, callable, outcome, rule) => {
    expect(decided(callable, { action: true })).toEqual({ outcome, rule });
  });

  test("a dotted id no tool rule names is a Home Assistant service, unless it is a tool's action", () => {
    // the HA shorthand `light.turn_on`: judged against allowed_services, which lists none
    const asService = engine.evaluate(tool('light.turn_on', {}));
    expect(asService.outcome).toBe('deny');
    expect(asService.reason).toMatch(/service/);
    // the brain knows `light.turn_on` is a registered tool's action: judged as a tool
    const asAction = engine.evaluate(tool('light.turn_on', {}), { action: true });
    expect(asAction.outcome).toBe('deny');
    expect(asAction.reason).toMatch(/tool/);
    expect(asAction.reason).not.toBe(asService.reason);
    // a rule naming the tool makes its dotted ids actions without being told
    expect(decided('lights.dim')).toEqual({ outcome: 'allow', rule: 'lights-any' });
  });

  test.each([
    [
      'actions with a dotted tool',
      'allowed_tools:\n  - {tool: notes.read, actions: [list]}\n',
      /allowed_tools\[0\]\.actions: 'notes\.read' names one action already/,
    ],
    [
      'an empty actions list',
      'allowed_tools:\n  - {tool: notes, actions: []}\n',
      /at least one action/,
    ],
    [
      'a repeated action',
      'allowed_tools:\n  - {tool: notes, actions: [a, a]}\n',
      /must not repeat/,
    ],
    [
      'an action that is no name',
      'allowed_tools:\n  - {tool: notes, actions: [Read]}\n',
      /actions\[0\]/,
    ],
  ])('%s is refused, naming the field', (_name, yaml, message) => {
    const issues = issuesOf(yaml).map((i) => `${i.path}: ${i.message}`);
    expect(issues.join('\n')).toMatch(message);
  });

  test('each listed action is a tool id of its own for the unknown-tool warnings', () => {
    const mentions = policyOf(POLICY).toolMentions;
    expect(mentions.map((m) => m.tool)).toEqual([
      'notes.read',
      'notes.list',
      'lights',
      'locks.status',
      'lights.unlock',
    ]);
    const known = [
      'notes.read',
      'notes.list',
      'notes.write',
      'lights.on',
      'lights.unlock',
      'locks.status',
    ];
    // `lights` (every action of a served tool) is known through its actions
    expect(unknownToolWarnings(mentions, known)).toEqual([]);
    const [warning, ...rest] = unknownToolWarnings(mentions, [
      'notes.read',
      'lights.on',
      'locks.status',
    ]);
    expect(rest.map((w) => w.message)).toEqual([expect.stringMatching(/^'lights\.unlock'/)]);
    expect(warning).toMatchObject({ path: 'allowed_tools[0].tool' });
    expect(warning!.message).toMatch(/^'notes\.list' is served by no worker/);
  });
});
