import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { diffSpecs, SafetyFloors } from '../../../src/brain/registry/safety.js';
import { defineTool } from '../../../src/legion/index.js';
import type { ToolSpec } from '../../../src/protocol/index.js';

const base = defineTool({
  name: 'lock',
  version: '1.0.0',
  description: 'Test tool: unlocks a door.',
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  executionLocality: 'local',
  resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
  hitl: 'confirm',
  input: z.strictObject({ door: z.enum(['front']) }),
  output: z.object({ ok: z.boolean() }),
  handler: () => ({ ok: true }),
});
const spec = (patch: Partial<ToolSpec> = {}): ToolSpec => ({ ...base.spec, ...patch });
const lax = { ...base.spec.annotations, destructive: false };

describe('diffSpecs', () => {
  test.each([
    ['the same spec', {}, [], []],
    ['a new version only', { version: '1.1.0' }, ['version'], []],
    ['hitl confirm -> autonomous', { hitl: 'autonomous' as const }, ['hitl'], ['hitl']],
    [
      'destructive dropped',
      { annotations: lax },
      ['annotations.destructive'],
      ['annotations.destructive'],
    ],
    [
      'any other input schema',
      { input_schema: { type: 'object' } },
      ['input_schema'],
      ['input_schema'],
    ],
    ['a new description', { description: 'Opens every door.' }, ['description'], []],
  ])('%s', (_what, patch, changes, lowered) => {
    expect(diffSpecs(base.spec, spec(patch))).toEqual({ changes, lowered });
  });

  test('raising safety lowers nothing', () => {
    const from = spec({ hitl: 'autonomous', annotations: lax });
    expect(diffSpecs(from, base.spec).lowered).toEqual([]);
  });
});

describe('SafetyFloors', () => {
  test('the first spec sets the floor and lowers nothing', () => {
    const floors = new SafetyFloors();
    expect(floors.admit('lock', base.spec, base.specSha256).lowered).toEqual([]);
    expect(floors.enforce('lock', base.spec, base.specSha256)).toEqual({
      spec: base.spec,
      specSha256: base.specSha256,
      held: [],
    });
  });

  test('a laxer spec is reported and enforced with the stricter settings put back', () => {
    const floors = new SafetyFloors();
    floors.admit('lock', base.spec, base.specSha256);
    const laxer = spec({
      version: '2.0.0',
      hitl: 'autonomous',
      annotations: lax,
      input_schema: { type: 'object' },
    });
    const admitted = floors.admit('lock', laxer, 'sha-laxer');
    expect(admitted).toMatchObject({
      fromVersion: '1.0.0',
      fromSha: base.specSha256,
      lowered: ['hitl', 'annotations.destructive', 'input_schema'],
    });
    expect(admitted.changes).toEqual([
      'annotations.destructive',
      'hitl',
      'input_schema',
      'version',
    ]);
    const enforced = floors.enforce('lock', laxer, 'sha-laxer');
    expect(enforced.held).toEqual(['hitl', 'annotations.destructive', 'input_schema']);
    expect(enforced.spec).toMatchObject({
      version: '2.0.0',
      hitl: 'confirm',
      annotations: { destructive: true },
      input_schema: base.spec.input_schema,
    });
    expect(enforced.specSha256).not.toBe('sha-laxer');
    expect(Object.isFrozen(enforced.spec.annotations)).toBe(true);
  });

  test('a stricter spec raises the floor for good; other tools keep their own', () => {
    const floors = new SafetyFloors();
    const laxFirst = spec({ hitl: 'autonomous', annotations: lax });
    floors.admit('lock', laxFirst, 'sha-lax');
    expect(floors.admit('lock', base.spec, base.specSha256).lowered).toEqual([]);
    expect(floors.enforce('lock', laxFirst, 'sha-lax').held).toEqual([
      'hitl',
      'annotations.destructive',
    ]);
    expect(floors.enforce('other', laxFirst, 'sha-lax').held).toEqual([]);
  });
});
