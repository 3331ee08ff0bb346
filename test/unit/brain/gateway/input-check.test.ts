import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { ToolInputCheck, type LiveSchema } from '../../../../src/brain/gateway/input-check.js';
import { defineTool } from '../../../../src/legion/index.js';
import { isGenericToolCall } from '../../../../src/policy/tool-call.js';

/** A live `call_service` whose announced schema lets anything through. */
function looseLiveTool(name: string): LiveSchema {
  const def = defineTool({
    name,
    version: '1.0.0',
    description: 'Test tool with a loose input schema.',
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    input: z.looseObject({}),
    output: z.object({}),
    handler: () => Promise.resolve({}),
  });
  return { spec: def.spec, specSha256: def.specSha256 };
}

describe("the brain's one input check", () => {
  const check = new ToolInputCheck();

  test('a well-formed call_service input passes, live or not', () => {
    const input = {
      domain: 'light',
      service: 'turn_on',
      target: { entity_id: ['light.kitchen'], area_id: 'hall' },
      data: { brightness_pct: 40 },
    };
    // the parsed input is kept, not thrown away (ADR 0078): the admitted call carries it
    expect(check.input('call_service', undefined, input)).toEqual({ ok: true, service: input });
    expect(check.input('call_service', looseLiveTool('call_service'), input)).toEqual({
      ok: true,
      service: input,
    });
  });

  test.each([
    ['not an object', 'light.turn_on', '(root)'],
    ['no domain', { service: 'turn_on' }, 'domain'],
    ['an empty service', { domain: 'light', service: '' }, 'service'],
    ['an upper-case domain', { domain: 'Light', service: 'turn_on' }, 'domain'],
    ['an unknown key', { domain: 'light', service: 'turn_on', service_data: {} }, 'service_data'],
    [
      'a top-level entity_id',
      { domain: 'light', service: 'x', entity_id: 'lock.door' },
      'entity_id',
    ],
    [
      'an unknown selector',
      { domain: 'light', service: 'on', target: { zone: 'x' } },
      'target.zone',
    ],
    [
      'a non-string selector',
      { domain: 'light', service: 'turn_on', target: { entity_id: 5 } },
      'target.entity_id',
    ],
    ['data that is a list', { domain: 'light', service: 'turn_on', data: [1] }, 'data'],
  ])(
    "call_service with %s is refused by the brain's own schema, even when the live worker announces a loose one",
    (_name, input, path) => {
      for (const live of [undefined, looseLiveTool('call_service')]) {
        const r = check.input('call_service', live, input);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.problems.map((p) => p.path)).toContain(path);
      }
    },
  );

  test('another tool is checked against the schema its live instance announced', () => {
    const strict = defineTool({
      name: 'adder',
      version: '1.0.0',
      description: 'Adds two numbers.',
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      executionLocality: 'local',
      resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
      input: z.strictObject({ a: z.number(), b: z.number() }),
      output: z.object({ sum: z.number() }),
      handler: ({ a, b }) => Promise.resolve({ sum: a + b }),
    });
    const tool: LiveSchema = { spec: strict.spec, specSha256: strict.specSha256 };
    expect(check.input('adder', tool, { a: 1, b: 2 })).toEqual({ ok: true });
    const r = check.input('adder', tool, { a: 1, c: 2 });
    expect(r).toEqual({
      ok: false,
      problems: expect.arrayContaining([
        { path: 'b', message: expect.any(String) as string },
        { path: 'c', message: "unknown field 'c'" },
      ]) as unknown,
    });
    // with no live instance there is no schema to check against: the policy and no_worker decide
    expect(check.input('adder', undefined, { c: 2 })).toEqual({ ok: true });
  });

  test('isGenericToolCall tells the two call shapes apart', () => {
    expect(isGenericToolCall({ tool: 'calculator', input: {} })).toBe(true);
    expect(isGenericToolCall({ domain: 'light', service: 'turn_on' })).toBe(false);
  });
});
