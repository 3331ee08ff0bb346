import { describe, expect, test } from 'vitest';
import { formatExplanation, type ToolCall } from '../../../src/policy/index.js';
import { DEFAULT_DENY_RULE_ID, type DecisionOutcome } from '../../../src/policy/decision.js';
import { engineOf, issuesOf, policyOf, svc } from './helpers.js';

// Issue 26, finding 3: deny rules on an entity's domain see the targets of every service
// (the generic homeassistant.* services, scripts, scenes, any service naming an entity of
// another domain), entity rules (`denied_entities`) deny named entities whatever the service,
// and selectors the policy cannot resolve (area, device, floor, label, all, group.*) on a
// service that can reach other domains need an allow rule that names them.

/** What each row expects: outcome, the rule that decided, and the target it matched. */
type Row = [
  name: string,
  call: ToolCall,
  outcome: DecisionOutcome,
  rule: string,
  target?: { entity_id: string; service: string | null } | null,
];

function check(yaml: string, rows: Row[]) {
  const { engine } = engineOf(yaml);
  test.each(rows)('%s', (_name, call, outcome, rule, target) => {
    const d = engine.evaluate(call);
    expect(d.outcome, d.reason).toBe(outcome);
    expect(d.rule.id, d.reason).toBe(rule);
    if (target !== undefined) expect(d.matched_target ?? null).toEqual(target);
  });
}

describe("the finding's policy: homeassistant.turn_on allowed, covers and locks denied", () => {
  const POLICY = `
allowed_services: [homeassistant.turn_on]
denied_services: ['cover.*', 'lock.*']
`;
  check(POLICY, [
    [
      'homeassistant.turn_on on a cover is denied by cover.* (Home Assistant runs cover.turn_on)',
      svc('homeassistant.turn_on', { entity_id: 'cover.garage_door' }),
      'deny',
      'denied_services[0]',
      { entity_id: 'cover.garage_door', service: 'cover.turn_on' },
    ],
    [
      'homeassistant.turn_on on a lock is denied by lock.*',
      svc('homeassistant.turn_on', { entity_id: 'lock.front_door' }),
      'deny',
      'denied_services[1]',
      { entity_id: 'lock.front_door', service: 'lock.turn_on' },
    ],
    [
      'homeassistant.turn_on on a light is allowed',
      svc('homeassistant.turn_on', { entity_id: 'light.kitchen' }),
      'allow',
      'allowed_services[0]',
      null,
    ],
    [
      'one denied entity among allowed ones denies the whole call',
      svc('homeassistant.turn_on', { entity_id: ['light.kitchen', 'cover.garage_door'] }),
      'deny',
      'denied_services[0]',
      { entity_id: 'cover.garage_door', service: 'cover.turn_on' },
    ],
    [
      'comma-separated ids in any case are split and lowercased first',
      svc('homeassistant.turn_on', { entity_id: 'light.kitchen, LOCK.Front_Door' }),
      'deny',
      'denied_services[1]',
      { entity_id: 'lock.front_door', service: 'lock.turn_on' },
    ],
    [
      'an entity inside data counts as a target',
      svc('homeassistant.turn_on', undefined, { entity_id: 'lock.front_door' }),
      'deny',
      'denied_services[1]',
    ],
    [
      'an entity inside data next to an allowed target counts too',
      svc('homeassistant.turn_on', { entity_id: 'light.kitchen' }, { entity_id: 'cover.gate' }),
      'deny',
      'denied_services[0]',
    ],
    [
      'by area: the policy cannot see what the area holds, so the bare allow does not cover it',
      svc('homeassistant.turn_on', { area_id: 'garage' }),
      'deny',
      DEFAULT_DENY_RULE_ID,
    ],
    [
      'by device: likewise',
      svc('homeassistant.turn_on', { device_id: 'a1b2c3' }),
      'deny',
      DEFAULT_DENY_RULE_ID,
    ],
    [
      'by floor: likewise',
      svc('homeassistant.turn_on', { floor_id: 'ground' }),
      'deny',
      DEFAULT_DENY_RULE_ID,
    ],
    [
      'by label: likewise',
      svc('homeassistant.turn_on', { label_id: 'outside' }),
      'deny',
      DEFAULT_DENY_RULE_ID,
    ],
    [
      'an old-style group expands to its members in Home Assistant: likewise',
      svc('homeassistant.turn_on', { entity_id: 'group.garage' }),
      'deny',
      DEFAULT_DENY_RULE_ID,
    ],
    [
      'entity_id all: likewise',
      svc('homeassistant.turn_on', { entity_id: 'all' }),
      'deny',
      DEFAULT_DENY_RULE_ID,
    ],
  ]);

  test('the reason names the entity, the rule with its position and what Home Assistant runs', () => {
    const { engine } = engineOf(POLICY);
    const d = engine.evaluate(svc('homeassistant.turn_on', { entity_id: 'lock.front_door' }));
    expect(d.reason).toMatch(
      /^service 'homeassistant\.turn_on' is denied by denied_services\[1\] \(policy\.yaml:3:30 in policy sha256 [0-9a-f]{12}\): it targets lock\.front_door, which Home Assistant runs as lock\.turn_on$/,
    );
  });

  test('a selector the policy cannot resolve is refused with a reason that says what to do', () => {
    const { engine } = engineOf(POLICY);
    const d = engine.evaluate(svc('homeassistant.turn_on', { area_id: 'garage' }));
    expect(d.reason).toContain('area_id');
    expect(d.reason).toContain('denied_services[0]');
    expect(d.reason).toMatch(/name the entities under entity_id/);
    expect(d.reason).toMatch(/target: \{area_id: \[garage\]\}/);
  });
});

describe('the generic services are judged as the service Home Assistant runs per entity', () => {
  check(
    `
allowed_services:
  - homeassistant.turn_off
  - homeassistant.toggle
  - service: homeassistant.turn_on
    id: living-room
    target: {area_id: [living_room]}
  - service: homeassistant.turn_off
    id: all-off
    target: {entity_id: all}
denied_services:
  - service: switch.turn_off
    id: keep-fridge-on
    target: {entity_id: [switch.fridge]}
`,
    [
      [
        'homeassistant.turn_off on the fridge is switch.turn_off on it: denied',
        svc('homeassistant.turn_off', { entity_id: 'switch.fridge' }),
        'deny',
        'keep-fridge-on',
        { entity_id: 'switch.fridge', service: 'switch.turn_off' },
      ],
      [
        'homeassistant.toggle on the fridge is switch.toggle, which no rule denies (as a direct call)',
        svc('homeassistant.toggle', { entity_id: 'switch.fridge' }),
        'allow',
        'allowed_services[1]',
      ],
      [
        'homeassistant.turn_off on another switch is allowed',
        svc('homeassistant.turn_off', { entity_id: 'switch.tv' }),
        'allow',
        'allowed_services[0]',
      ],
      [
        'an area an allow rule names explicitly is allowed',
        svc('homeassistant.turn_on', { area_id: 'living_room' }),
        'allow',
        'living-room',
      ],
      [
        'an area no rule names is not',
        svc('homeassistant.turn_off', { area_id: 'kitchen' }),
        'deny',
        DEFAULT_DENY_RULE_ID,
      ],
      [
        'entity_id all with a rule that says all is allowed',
        svc('homeassistant.turn_off', { entity_id: 'all' }),
        'allow',
        'all-off',
      ],
    ],
  );
});

describe('scripts, scenes and any other service that names entities of another domain', () => {
  check(
    `
allowed_services:
  - script.turn_on
  - scene.apply
  - scene.create
  - scene.turn_on
  - notify.send_message
  - homeassistant.update_entity
  - light.turn_on
denied_services:
  - lock.*
  - service: switch.turn_off
    id: keep-fridge-on
    target: {entity_id: switch.fridge}
  - service: climate.set_temperature
    id: too-hot
    data: {temperature: {min: 30}}
`,
    [
      [
        'a script by name is allowed',
        svc('script.turn_on', { entity_id: 'script.bedtime' }),
        'allow',
        'allowed_services[0]',
      ],
      [
        'a script call naming a lock is denied by lock.* (what it runs on the lock is unknown)',
        svc('script.turn_on', { entity_id: ['script.bedtime', 'lock.front_door'] }),
        'deny',
        'denied_services[0]',
        { entity_id: 'lock.front_door', service: null },
      ],
      [
        'a lock inside data of a script call likewise',
        svc('script.turn_on', { entity_id: 'script.bedtime' }, { entity_id: 'lock.front_door' }),
        'deny',
        'denied_services[0]',
      ],
      [
        'scene.apply reads its entities as targets: a lock is denied',
        svc('scene.apply', undefined, { entities: { 'lock.front_door': 'unlocked' } }),
        'deny',
        'denied_services[0]',
        { entity_id: 'lock.front_door', service: null },
      ],
      [
        'scene.apply on a light is allowed',
        svc('scene.apply', undefined, { entities: { 'light.kitchen': { state: 'on' } } }),
        'allow',
        'allowed_services[1]',
      ],
      [
        'scene.apply on the fridge meets keep-fridge-on: it may switch it off',
        svc('scene.apply', undefined, { entities: { 'switch.fridge': 'off' } }),
        'deny',
        'keep-fridge-on',
        { entity_id: 'switch.fridge', service: null },
      ],
      [
        'scene.apply on another switch is outside keep-fridge-on',
        svc('scene.apply', undefined, { entities: { 'switch.tv': 'off' } }),
        'allow',
        'allowed_services[1]',
      ],
      [
        'a deny rule with data constraints matches a service whose data it cannot read',
        svc('scene.apply', undefined, { entities: { 'climate.hall': { temperature: 35 } } }),
        'deny',
        'too-hot',
      ],
      [
        'scene.create with a lock to snapshot is denied (turning the scene on restores it)',
        svc('scene.create', undefined, { scene_id: 'x', snapshot_entities: ['lock.front_door'] }),
        'deny',
        'denied_services[0]',
      ],
      [
        'scene.apply whose entities is not a map is malformed',
        svc('scene.apply', undefined, { entities: 'lock.front_door' }),
        'deny',
        DEFAULT_DENY_RULE_ID,
      ],
      [
        'a scene by name is allowed (the policy sees the scene, not what it sets)',
        svc('scene.turn_on', { entity_id: 'scene.movie' }),
        'allow',
        'allowed_services[3]',
      ],
      [
        'scenes by area: not resolvable, other domains denied, bare rule: denied',
        svc('scene.turn_on', { area_id: 'living_room' }),
        'deny',
        DEFAULT_DENY_RULE_ID,
      ],
      [
        'lights by area reach lights only: allowed',
        svc('light.turn_on', { area_id: 'kitchen' }),
        'allow',
        'allowed_services[6]',
      ],
      [
        'a light service naming a lock is denied by lock.*',
        svc('light.turn_on', { entity_id: 'lock.front_door' }),
        'deny',
        'denied_services[0]',
      ],
      [
        'homeassistant.update_entity on a lock is denied too',
        svc('homeassistant.update_entity', { entity_id: 'lock.front_door' }),
        'deny',
        'denied_services[0]',
      ],
      [
        'a service without targets is untouched',
        svc('notify.send_message', undefined, { message: 'hi' }),
        'allow',
        'allowed_services[4]',
      ],
    ],
  );
});

describe('denied_entities: entities denied whatever the service', () => {
  const POLICY = `
allowed_services:
  - homeassistant.turn_on
  - switch.turn_on
  - switch.turn_off
  - lock.lock
  - script.turn_on
denied_entities:
  - lock.front_door
  - entity_id: [switch.fridge, 'switch.freezer_*']
    id: keep-cold
    description: the fridge and the freezers stay as they are
`;
  check(POLICY, [
    [
      'its own domain: switch.turn_off on the fridge',
      svc('switch.turn_off', { entity_id: 'switch.fridge' }),
      'deny',
      'keep-cold',
      { entity_id: 'switch.fridge', service: 'switch.turn_off' },
    ],
    [
      'any service of it: switch.turn_on on a freezer (glob)',
      svc('switch.turn_on', { entity_id: 'switch.freezer_2' }),
      'deny',
      'keep-cold',
      { entity_id: 'switch.freezer_2', service: 'switch.turn_on' },
    ],
    [
      'other entities pass',
      svc('switch.turn_off', { entity_id: 'switch.tv' }),
      'allow',
      'allowed_services[2]',
    ],
    [
      'the shorthand form',
      svc('lock.lock', { entity_id: 'lock.front_door' }),
      'deny',
      'denied_entities[0]',
    ],
    [
      'another lock passes',
      svc('lock.lock', { entity_id: 'lock.back_door' }),
      'allow',
      'allowed_services[3]',
    ],
    [
      'through the generic service',
      svc('homeassistant.turn_on', { entity_id: ['switch.tv', 'switch.fridge'] }),
      'deny',
      'keep-cold',
      { entity_id: 'switch.fridge', service: 'switch.turn_on' },
    ],
    [
      'through a script call naming it',
      svc('script.turn_on', { entity_id: 'script.x' }, { entity_id: 'switch.fridge' }),
      'deny',
      'keep-cold',
      { entity_id: 'switch.fridge', service: null },
    ],
    [
      'comma-separated and upper-case ids are read as Home Assistant reads them',
      svc('switch.turn_off', { entity_id: 'switch.tv,SWITCH.FRIDGE' }),
      'deny',
      'keep-cold',
    ],
    [
      'a service of its domain by area may reach it: denied',
      svc('switch.turn_off', { area_id: 'kitchen' }),
      'deny',
      'keep-cold',
      null,
    ],
    [
      'a lock service by device may reach the front door: denied',
      svc('lock.lock', { device_id: 'abc' }),
      'deny',
      'denied_entities[0]',
    ],
    [
      'the generic service by area: not resolvable, so the bare allow does not cover it',
      svc('homeassistant.turn_on', { area_id: 'kitchen' }),
      'deny',
      DEFAULT_DENY_RULE_ID,
    ],
  ]);

  test('caesar policy check counts them', () => {
    expect(policyOf(POLICY).rules.filter((r) => r.ref.list === 'denied_entities')).toHaveLength(2);
  });
});

describe('explain shows which target matched', () => {
  const { engine } = engineOf(`
allowed_services: [homeassistant.turn_on]
denied_services: ['cover.*']
`);

  test('the decision carries the entity and the trace the rule that matched it', () => {
    const { decision, trace } = engine.explain(
      svc('homeassistant.turn_on', { entity_id: ['light.hall', 'cover.garage_door'] }),
    );
    expect(decision.matched_target).toEqual({
      entity_id: 'cover.garage_door',
      service: 'cover.turn_on',
    });
    expect(trace).toContainEqual(
      expect.objectContaining({
        rule: expect.objectContaining({ id: 'denied_services[0]', line: 3 }),
        result: 'matched',
        target: 'cover.garage_door',
      }),
    );
  });

  test('the CLI rendering names the target and the rule with its file:line', () => {
    const lines = formatExplanation(
      engine.explain(svc('homeassistant.turn_on', { entity_id: 'cover.garage_door' })),
    );
    expect(lines).toContain('target: cover.garage_door (Home Assistant runs it as cover.turn_on)');
    expect(
      lines.some(
        (l) =>
          /matched\s+denied_services\[0\] \(policy\.yaml:3:/.test(l) &&
          l.includes('cover.garage_door'),
      ),
    ).toBe(true);
  });

  test('a same-domain deny with a target names the id that matched', () => {
    const { engine: e } = engineOf(`
allowed_services: [switch.turn_off]
denied_services:
  - service: switch.turn_off
    id: keep-fridge-on
    target: {entity_id: switch.fridge}
`);
    const d = e.evaluate(svc('switch.turn_off', { entity_id: 'switch.tv, switch.fridge' }));
    expect(d.rule.id).toBe('keep-fridge-on');
    expect(d.matched_target).toEqual({ entity_id: 'switch.fridge', service: 'switch.turn_off' });
  });
});

describe('the denied_entities grammar', () => {
  test('an unknown key is an error with file:line:col and a hint', () => {
    const issues = issuesOf(`
denied_entities:
  - entity_id: lock.front_door
    entity: lock.back_door
`);
    expect(issues).toEqual([
      expect.objectContaining({
        line: 4,
        column: 5,
        path: 'denied_entities[0].entity',
        message: expect.stringMatching(/unknown key 'entity'/),
      }),
    ]);
  });

  test.each([
    ['all', /not an entity/],
    ['light.kitchеn', /U\+0435/],
    ['kitchen light', /no spaces or commas/],
  ])('%s is refused', (id, message) => {
    const issues = issuesOf(`denied_entities: [${JSON.stringify(id)}]\n`);
    expect(issues[0]?.message).toMatch(message);
    expect(issues[0]?.line).toBe(1);
  });

  test('a rule needs an entity', () => {
    expect(issuesOf('denied_entities:\n  - id: nothing\n')[0]?.path).toBe(
      'denied_entities[0].entity_id',
    );
  });

  test('a policy without entity rules loads and decides as before', () => {
    const { engine } = engineOf('allowed_services: [light.turn_on]\n');
    expect(engine.evaluate(svc('light.turn_on', { area_id: 'x' })).outcome).toBe('allow');
  });
});
