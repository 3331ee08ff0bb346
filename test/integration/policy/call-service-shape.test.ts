import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defineTool } from '../../../src/legion/index.js';
import { startBrainParts, type BrainParts } from '../../helpers/brain-parts.js';

/**
 * Issue 11, finding 2, through the gateway: a `call_service` input with a key outside
 * `{domain, service, target?, data?, return_response?}` never reaches the worker. The brain
 * checks every call_service input against its own wire schema (src/protocol) before the
 * policy judges it (ADR 0045); the stand-in worker's announced schema is deliberately loose,
 * so only the brain stands between the call and the worker. A call the policy would deny
 * anyway is answered as that denial, naming the key.
 */
const ran: unknown[] = [];
const looseService = defineTool({
  name: 'call_service',
  version: '1.0.0',
  description: 'Test tool: a call_service whose schema lets any key through.',
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  input: z.looseObject({ domain: z.string(), service: z.string() }),
  output: z.object({ ok: z.boolean() }),
  handler: (input) => {
    ran.push(input);
    return Promise.resolve({ ok: true });
  },
});

const POLICY = `version: 1
allowed_services:
  - service: switch.turn_off
    id: fan-off
    target: {entity_id: [switch.fan_1]}
denied_services:
  - service: switch.turn_off
    id: keep-fridge-on
    target: {entity_id: [switch.fridge]}
`;

describe('call_service input shape at the gateway', () => {
  let parts: BrainParts;
  beforeAll(async () => {
    parts = await startBrainParts({ policy: POLICY, tools: [looseService] });
  });
  afterAll(async () => {
    await parts?.close();
  });

  const fan = { domain: 'switch', service: 'turn_off', target: { entity_id: 'switch.fan_1' } };
  const caller = { actor: 'tester' };

  test('a top-level entity_id next to an allowed target is denied by the policy and never dispatched', async () => {
    const input = { ...fan, entity_id: 'switch.fridge' };
    const r = await parts.gateway.invoke('call_service', input, caller);
    expect(r.outcome).toBe('denied');
    expect(r.reason).toContain('"entity_id"');
    const rows = parts.audit.query({ decisionId: r.decision_id, order: 'oldest' });
    expect(rows.map((row) => row.type)).toEqual(['tool.denied']);
    expect(rows[0]?.payload).toMatchObject({
      code: 'denied',
      decision: { allowed: false, reason: expect.stringContaining('"entity_id"') as string },
    });
    expect(ran).toEqual([]);
  });

  test('a call the policy allows but the wire schema refuses is invalid_input, never dispatched', async () => {
    // the policy reads names as Home Assistant does (lower-cased); the wire schema does not
    const input = { ...fan, domain: 'Switch' };
    expect(parts.gateway.explain('call_service', { ...fan }).decision.outcome).toBe('allow');
    const r = await parts.gateway.invoke('call_service', input, caller);
    expect(r.outcome).toBe('failed');
    expect(r.error).toMatchObject({
      code: 'invalid_input',
      details: [{ path: 'domain', message: expect.stringContaining('lowercase') as string }],
    });
    const rows = parts.audit.query({ decisionId: r.decision_id, order: 'oldest' });
    expect(rows.map((row) => row.type)).toEqual(['tool.input_rejected']);
    expect(rows[0]?.payload).toMatchObject({ code: 'invalid_input' });
    expect(ran).toEqual([]);
  });

  test('the same call without the extra key runs, so the denial above is the extra key', async () => {
    const before = ran.length;
    const r = await parts.gateway.invoke('call_service', fan, caller);
    expect(r.outcome).toBe('ok');
    expect(r.rule).toBe('fan-off');
    expect(ran).toHaveLength(before + 1);
  });
});
