import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Agent } from '../../../src/brain/agent/index.js';
import { loadIntents } from '../../../src/brain/intents/index.js';
import { SHIPPED_INTENTS_FILE } from '../../../src/config/shipped.js';
import { callablesOf } from '../../../src/legion/index.js';
import { createHomeAssistantTool } from '../../../workers/home_assistant/tool.js';
import {
  FAKE_HA_TOKEN,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import { startBrainParts, type BrainParts } from '../../helpers/brain-parts.js';

/**
 * ADR 0093: the home_assistant tool's two actions served by one worker over NATS, against a
 * loopback Home Assistant, under a policy written with the actions' names and under one still
 * naming the two old tools: "turn on the kitchen light" finds the entity with
 * home_assistant.entities, switches it with home_assistant.call_service, and the audit log
 * names both actions.
 */
const NEW_NAMES = `version: 1
allowed_services:
  - service: light.turn_on
    target:
      entity_id: [light.kitchen]
allowed_tools:
  - tool: home_assistant
    actions: [entities]
`;
// the same grants as an operator wrote them before the two tools became one
const OLD_NAMES = `version: 1
allowed_services:
  - service: light.turn_on
    target:
      entity_id: [light.kitchen]
allowed_tools:
  - ha_entities
`;
const KILLED = `${NEW_NAMES}denied_tools:\n  - call_service\n`;

let ha: FakeHomeAssistant;

beforeAll(async () => {
  ha = await startFakeHomeAssistant({
    entities: [
      { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen' } },
    ],
  });
});

afterAll(async () => {
  await ha?.close();
});

async function brainWith(policy: string): Promise<{ parts: BrainParts; agent: Agent }> {
  const tool = createHomeAssistantTool({ settle: { settleMs: 200, pollMs: 50 } });
  const parts = await startBrainParts({
    policy,
    tools: [...callablesOf(tool)],
    toolConfig: { ha: { url: ha.url, token: FAKE_HA_TOKEN } },
    callTimeoutMs: 10_000,
  });
  const agent = new Agent({
    gate: parts.gateway,
    intents: await loadIntents(SHIPPED_INTENTS_FILE),
    conversations: parts.conversations,
    audit: parts.audit,
    timeZone: 'UTC',
  });
  return { parts, agent };
}

describe('the home_assistant tool through the shipped intents', () => {
  test.each([
    ['the actions', NEW_NAMES],
    ['the two old tools', OLD_NAMES],
  ])('a policy naming %s: found, switched, audited under the actions', async (_what, policy) => {
    ha.setState('light.kitchen', 'off');
    const { parts, agent } = await brainWith(policy);
    try {
      const r = await agent.chat({ message: 'turn on the kitchen light' }, { actor: 'ops' });
      expect(r.reply).toBe('Done: Kitchen is on.');
      expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
        ['home_assistant.entities', 'ok'],
        ['home_assistant.call_service', 'ok'],
      ]);
      expect(ha.states.get('light.kitchen')?.state).toBe('on');
      const called = parts.audit
        .query({ order: 'oldest' })
        .filter((row) => row.type === 'tool.called' || row.type === 'service.called')
        .map((row) => [row.type, row.tool]);
      expect(called).toEqual([
        ['tool.called', 'home_assistant.entities'],
        ['service.called', 'home_assistant.call_service'],
      ]);
    } finally {
      await parts.close();
    }
  });

  test("the old tool's kill switch still stops every service call", async () => {
    ha.setState('light.kitchen', 'off');
    const { parts, agent } = await brainWith(KILLED);
    try {
      const r = await agent.chat({ message: 'turn on the kitchen light' }, { actor: 'ops' });
      expect(r.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
        ['home_assistant.entities', 'ok'],
        ['home_assistant.call_service', 'denied'],
      ]);
      expect(r.reply).toMatch(
        /^I'm not allowed to use home_assistant\.call_service: .*denied_tools\[0\]/,
      );
      expect(ha.states.get('light.kitchen')?.state).toBe('off');
    } finally {
      await parts.close();
    }
  });
});
