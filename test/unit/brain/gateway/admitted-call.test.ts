import { describe, expect, expectTypeOf, test } from 'vitest';
import type { AuditPayload, AuditPayloads } from '../../../../src/audit/events.js';
import { admit } from '../../../../src/brain/gateway/admitted-call.js';
import { ToolInputCheck } from '../../../../src/brain/gateway/input-check.js';
import { contextFor } from '../../../../src/brain/gateway/records.js';

describe('the admitted call (ADR 0078)', () => {
  const check = new ToolInputCheck();
  const input = {
    domain: 'light',
    service: 'turn_on',
    target: { entity_id: 'Light.Kitchen, light.hall' },
    data: { brightness_pct: 40 },
  };

  test('a call_service input is read once: parsed, its service row, the policy reading', () => {
    const ctx = contextFor('call_service', input, 'd-1', { actor: 'token:ops' });
    const r = admit(ctx, undefined, check, 5000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const view = r.call.service!;
    expect(view.input).toEqual(input);
    expect(view.row).toEqual({
      service: 'light.turn_on',
      target: input.target,
      data: input.data,
    });
    expect(view.normalized.ok && view.normalized.call.selectors[0]).toEqual([
      'light.kitchen',
      'light.hall',
    ]);
    expect(r.call.summary).toBe(
      'Home Assistant light.turn_on on entity_id Light.Kitchen, light.hall with data {"brightness_pct":40}',
    );
    expect(r.call.provenance).toEqual({ asked_by: 'api' });
    // no worker serves it: no deadline to carry
    expect(r.call.deadline).toBeUndefined();
  });

  test('any other tool carries no service view; its summary is its input', () => {
    const ctx = contextFor('calculator', { expression: '2+2' }, 'd-2', { actor: 'cli' });
    const r = admit(ctx, undefined, check, 5000);
    expect(r.ok && r.call.service).toBeUndefined();
    expect(r.ok && r.call.summary).toBe('calculator with {"expression":"2+2"}');
  });

  test('an input its schema refuses is not admitted', () => {
    const ctx = contextFor('call_service', { domain: 'Light' }, 'd-3', { actor: 'cli' });
    const r = admit(ctx, undefined, check, 5000);
    expect(r.ok).toBe(false);
  });
});

describe('typed audit rows', () => {
  test("a row's payload type follows from its event type; a wrong key does not compile", () => {
    const decision = { allowed: false, reason: 'no', rule: null, policy_sha256: null };
    const good: AuditPayload<'tool.denied'> = { input: {}, decision, code: 'denied' };
    expect(good.code).toBe('denied');
    // @ts-expect-error `code` misspelt: the required key is missing
    const misspelt: AuditPayload<'tool.denied'> = { input: {}, decision, cod: 'denied' };
    expect(misspelt).toBeDefined();
    // @ts-expect-error a rejection's reason is one of four words, not any string
    const reason: AuditPayloads['tool.rejected'] = { confirmation_id: 'c', reason: 'bored' };
    expect(reason).toBeDefined();
    expectTypeOf<AuditPayloads['tool.result']>().toHaveProperty('duration_ms');
  });
});
