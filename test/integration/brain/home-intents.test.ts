import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { AuditLog } from '../../../src/audit/index.js';
import { Agent } from '../../../src/brain/agent/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  entityFallback,
  loadIntents,
  POLICY_LIST_CLAUSE,
} from '../../../src/brain/intents/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { createCallServiceTool } from '../../../workers/call_service/index.js';
import { haEntitiesTool } from '../../../workers/ha_entities/index.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import { startBrainParts, type BrainParts } from '../../helpers/brain-parts.js';

/**
 * "turn on the kitchen light" end to end in the brain: the shipped intent rule, the policy,
 * the audit log, and the real ha_entities and call_service workers over NATS against a
 * loopback Home Assistant. The rule resolves the name with ha_entities, the policy judges
 * light.turn_on on the entity it found, and the reply reads the call's post-condition.
 */
const POLICY = `version: 1
allowed_services:
  - service: light.turn_on
    target:
      entity_id: [light.kitchen_ceiling, light.stuck]
  - service: light.turn_off
    target:
      entity_id: [light.kitchen_ceiling]
allowed_tools:
  - tool: ha_entities
`;

const light = (entity_id: string, friendly_name: string, extra: object = {}) => ({
  entity_id,
  state: 'off',
  attributes: { friendly_name },
  ...extra,
});

let ha: FakeHomeAssistant;
let parts: BrainParts;
let audit: AuditLog;
let agent: Agent;

beforeAll(async () => {
  ha = await startFakeHomeAssistant({
    entities: [
      light('light.kitchen_ceiling', 'Kitchen', { aliases: ['cooking light'] }),
      light('light.hall_left', 'Hall Left'),
      light('light.hall_right', 'Hall Right'),
      light('light.stuck', 'Stuck Lamp', { device: 'frozen' }),
      light('light.porch', 'Porch'),
    ],
  });
  // a frozen device never reports: a short settle window keeps the test quick
  const callService = createCallServiceTool({ settle: { settleMs: 200, pollMs: 50 } });
  parts = await startBrainParts({
    policy: POLICY,
    tools: [callService, haEntitiesTool],
    toolConfig: { ha: { url: ha.url, token: FAKE_HA_TOKEN } },
    callTimeoutMs: 10_000,
  });
  audit = parts.audit;
  agent = new Agent({
    gate: parts.gateway,
    intents: await loadIntents(SHIPPED_INTENTS_FILE),
    conversations: parts.conversations,
    audit,
    timeZone: 'UTC',
  });
});

afterAll(async () => {
  await parts?.close();
  await ha?.close();
});

beforeEach(() => {
  ha.setState('light.kitchen_ceiling', 'off');
});

const rows = (decisionId: string) =>
  audit.query({ decisionId, order: 'oldest' }).map((r) => r.type);

describe('device intents through ha_entities and call_service', () => {
  test('"turn on the kitchen light" finds light.kitchen_ceiling, switches it and says so', async () => {
    const r = await agent.chat({ message: 'turn on the kitchen light' }, { actor: 'ops' });
    expect(r.reply).toBe('Done: Kitchen is on.');
    expect(r.planner).toBe('intent');
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['ha_entities', 'ok'],
      ['call_service', 'ok'],
    ]);
    const [lookup, call] = r.tool_calls;
    expect(lookup?.input).toEqual({ query: 'kitchen', domain: 'light' });
    expect(call?.input).toEqual({
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: 'light.kitchen_ceiling' },
    });
    expect(ha.states.get('light.kitchen_ceiling')?.state).toBe('on');
    expect(rows(lookup!.decision_id)).toEqual(['tool.called', 'tool.result']);
    expect(rows(call!.decision_id)).toEqual(['service.called', 'tool.result']);
    const called = audit.query({ decisionId: call!.decision_id, types: ['service.called'] })[0];
    expect(called?.payload).toMatchObject({
      service: 'light.turn_on',
      target: { entity_id: 'light.kitchen_ceiling' },
    });
  });

  test('an alias resolves too', async () => {
    const r = await agent.chat({ message: 'turn on the cooking light' }, { actor: 'ops' });
    expect(r.reply).toBe('Done: Kitchen is on.');
  });

  test('a light that stays off never gets "Done"', async () => {
    const r = await agent.chat({ message: 'turn on the stuck lamp light' }, { actor: 'ops' });
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['ok', 'ok']);
    expect(r.reply).toBe(
      'I asked Home Assistant to switch Stuck Lamp on, but Stuck Lamp stayed off.',
    );
    expect(r.reply).not.toMatch(/^Done/);
  });

  test('an ambiguous name gets a question back and nothing is switched', async () => {
    const r = await agent.chat({ message: 'turn on the hall light' }, { actor: 'ops' });
    expect(r.reply).toBe(
      'Which light do you mean by "hall": Hall Left (light.hall_left) or Hall Right (light.hall_right)? Say it with the full name.',
    );
    expect(r.tool_calls.map((c) => c.tool)).toEqual(['ha_entities']);
    expect(ha.seen('POST', /^\/api\/services\/light\//).some((q) => q.body.includes('hall'))).toBe(
      false,
    );
  });

  test('an unknown name says so', async () => {
    const r = await agent.chat({ message: 'turn on the attic light' }, { actor: 'ops' });
    expect(r.reply).toBe('I couldn\'t find a light called "attic" in Home Assistant.');
    expect(r.tool_calls).toHaveLength(1);
  });

  test('the policy judges the entity found, not the words said', async () => {
    const r = await agent.chat({ message: 'turn on the porch light' }, { actor: 'ops' });
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['ha_entities', 'ok'],
      ['call_service', 'denied'],
    ]);
    expect(r.reply).toMatch(/^I'm not allowed to use call_service: .*light\.porch/);
    expect(ha.states.get('light.porch')?.state).toBe('off');
  });
});

/** The seed design's own example policy (DESIGN.md, "Policy"), verbatim: no ha_entities. */
const SEED_POLICY = `version: 1
allowed_services:              # Home Assistant calls, matched as domain.service
  - light.turn_on              # bare: any target/data
  - service: light.turn_off
    target:
      entity_id: [light.kitchen]
allowed_tools:                 # every other tool, matched by tool id
  - tool: calculator           # bare: fully permissive
  - tool: web_search
    input:
      domain_allowlist: [en.wikipedia.org]
`;

describe('device intents when ha_entities is not granted (ADR 0088)', () => {
  const fallbackAgent = () =>
    new Agent({
      gate: parts.gateway,
      intents: agentIntents,
      conversations: parts.conversations,
      audit,
      timeZone: 'UTC',
      lookupFallback: entityFallback({
        explain: (tool, input) => parts.gateway.explain(tool, input),
        namedEntities: () => parts.policy.policy.namedEntities,
      }),
    });
  let agentIntents: Awaited<ReturnType<typeof loadIntents>>;

  beforeAll(async () => {
    agentIntents = await loadIntents(SHIPPED_INTENTS_FILE);
  });

  test('a policy that grants ha_entities still has the name looked up', async () => {
    const r = await fallbackAgent().chat(
      { message: 'turn on the kitchen light' },
      { actor: 'ops' },
    );
    expect(r.tool_calls.map((c) => c.tool)).toEqual(['ha_entities', 'call_service']);
    expect(r.reply).toBe('Done: Kitchen is on.');
  });

  test('with the seed policy, "turn on the kitchen light" matches the light the policy names, and says so', async () => {
    ha.addEntity({
      entity_id: 'light.kitchen',
      state: 'off',
      attributes: { friendly_name: 'Kitchen Lamp' },
    });
    writeFileSync(join(parts.dir, 'policy.yaml'), SEED_POLICY);
    await parts.policy.reload();
    expect(parts.policy.policy.namedEntities).toEqual(['light.kitchen']);

    const lookupsAudited = () => audit.query({ tool: 'ha_entities', limit: 1000 }).length;
    const lookupsBefore = lookupsAudited();
    const r = await fallbackAgent().chat(
      { message: 'turn on the kitchen light' },
      { actor: 'ops' },
    );
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([['call_service', 'ok']]);
    expect(r.tool_calls[0]?.input).toEqual({
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: 'light.kitchen' },
    });
    expect(ha.states.get('light.kitchen')?.state).toBe('on');
    expect(r.reply).toBe(`Done: light.kitchen is on. ${POLICY_LIST_CLAUSE}`);
    // nothing asked ha_entities: no row for it since the policy changed
    expect(lookupsAudited()).toBe(lookupsBefore);

    const unknown = await fallbackAgent().chat(
      { message: 'turn on the attic light' },
      { actor: 'ops' },
    );
    expect(unknown.tool_calls).toEqual([]);
    expect(unknown.reply).toBe(`I couldn't find a light called "attic". ${POLICY_LIST_CLAUSE}`);
  });

  test('without the fallback the seed policy refuses the lookup, as it did before', async () => {
    const r = await agent.chat({ message: 'turn on the kitchen light' }, { actor: 'ops' });
    expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([['ha_entities', 'denied']]);
  });
});
