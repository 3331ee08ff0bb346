import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  callBrain,
  pollBrain,
  startBrainProcess,
  stopProcess,
  type BrainProcess,
} from '../../helpers/brain.js';
import { startCli, type RunningCli } from '../../helpers/cli.js';
import {
  FAKE_HA_TOKEN,
  setsState,
  startFakeHomeAssistant,
  type FakeHomeAssistant,
} from '../../helpers/fake-home-assistant.js';
import { startNats, type TestNats } from '../../helpers/nats.js';

// Issue 26, finding 3, against the live brain: with the finding's exact policy,
// homeassistant.turn_on on a cover or a lock is denied (tool.denied in the audit log, naming
// the entity) and Home Assistant is never called; on a light it still runs.

const POLICY = `version: 1
allowed_services: [homeassistant.turn_on]
denied_services: ['cover.*', 'lock.*']
`;

describe('deny rules that see the entity, on a running brain', () => {
  let nats: TestNats;
  let ha: FakeHomeAssistant;
  let dir: string;
  let brain: BrainProcess;
  let worker: RunningCli | undefined;

  beforeAll(async () => {
    nats = await startNats();
    ha = await startFakeHomeAssistant({
      entities: [
        { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen' } },
        { entity_id: 'cover.garage_door', state: 'closed', attributes: {} },
        { entity_id: 'lock.front_door', state: 'locked', attributes: {} },
      ],
      // Home Assistant's generic service: the same service in each entity's domain
      services: { 'homeassistant.turn_on': { run: setsState('on') } },
    });
    dir = mkdtempSync(join(tmpdir(), 'caesar-entity-rules-'));
    const policyFile = join(dir, 'policy.yaml');
    writeFileSync(policyFile, POLICY);
    worker = startCli(
      ['legion', 'serve-tool', 'call_service', '--nats-url', nats.url, '--log-level', 'warn'],
      {
        CAESAR_HA__URL: ha.url,
        CAESAR_HA__TOKEN: FAKE_HA_TOKEN,
        // the brain here has no NKEY identity and signs no grants (helpers/brain.ts)
        CAESAR_WORKER__REQUIRE_GRANT: 'false',
      },
    );
    brain = await startBrainProcess({ natsUrl: nats.url, dataDir: dir, policyFile });
    await pollBrain(
      async () =>
        ((await callBrain(brain, 'GET', '/v1/tools')).body as { name: string }[]).some?.(
          (t) => t.name === 'call_service',
        ),
      'the brain to discover call_service',
      30_000,
    );
  }, 60_000);

  afterAll(async () => {
    await stopProcess(brain?.proc);
    await stopProcess(worker);
    await ha?.close();
    await nats?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const turnOn = async (entity: string) =>
    (
      await callBrain(brain, 'POST', '/v1/tools/call_service/invoke', {
        input: { domain: 'homeassistant', service: 'turn_on', target: { entity_id: entity } },
      })
    ).body as { outcome: string; decision_id: string; reason?: string };

  const auditOf = async (decisionId: string) =>
    (await callBrain(brain, 'GET', `/v1/audit?decision_id=${decisionId}&order=oldest`)).body as {
      event_type: string;
      payload: { decision: Record<string, unknown> };
    }[];

  test('homeassistant.turn_on on a light runs (the stack reaches Home Assistant)', async () => {
    const r = await turnOn('light.kitchen');
    expect(r.outcome, r.reason).toBe('ok');
    expect(ha.calls.map((c) => `${c.domain}.${c.service}`)).toContain('homeassistant.turn_on');
    expect(ha.states.get('light.kitchen')?.state).toBe('on');
  }, 30_000);

  test.each([
    ['cover.garage_door', 'denied_services[0]', 'cover.turn_on', 'closed'],
    ['lock.front_door', 'denied_services[1]', 'lock.turn_on', 'locked'],
  ])(
    'homeassistant.turn_on on %s is denied, audited as tool.denied, and never sent',
    async (entity, rule, runsAs, before) => {
      const sent = ha.calls.length;
      const r = await turnOn(entity);
      expect(r.outcome).toBe('denied');
      expect(r.reason).toContain(`it targets ${entity}, which Home Assistant runs as ${runsAs}`);
      const rows = await auditOf(r.decision_id);
      expect(rows.map((row) => row.event_type)).toEqual(['tool.denied']);
      expect(rows[0]?.payload.decision).toMatchObject({
        allowed: false,
        rule,
        rule_at: expect.stringMatching(/policy\.yaml:3:\d+$/),
        matched_target: { entity_id: entity, service: runsAs },
      });
      expect(ha.calls.length).toBe(sent);
      expect(ha.seen('POST', /^\/api\/services\//).some((q) => q.body.includes(entity))).toBe(
        false,
      );
      expect(ha.states.get(entity)?.state).toBe(before);
    },
    30_000,
  );

  test('POST /v1/policy/explain shows the entity and the rule that matched it', async () => {
    const { body } = await callBrain(brain, 'POST', '/v1/policy/explain', {
      tool: 'call_service',
      input: {
        domain: 'homeassistant',
        service: 'turn_on',
        target: { entity_id: 'lock.front_door' },
      },
    });
    expect(body.decision.matched_target).toEqual({
      entity_id: 'lock.front_door',
      service: 'lock.turn_on',
    });
    expect(body.trace).toContainEqual(
      expect.objectContaining({
        result: 'matched',
        target: 'lock.front_door',
        rule: expect.objectContaining({ id: 'denied_services[1]', line: 3 }),
      }),
    );
  }, 30_000);
});
