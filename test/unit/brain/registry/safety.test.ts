import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { diffSpecs, SafetyFloors } from '../../../../src/brain/registry/safety.js';
import { defineTool } from '../../../../src/legion/index.js';
import type { ToolSpec } from '../../../../src/protocol/index.js';

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

/**
 * What a tool does and what its output is (ADR 0067): the policy's flow rules read
 * `readOnly`, `openWorld` and the output's trust and privacy, so a later spec may only make
 * them stricter (`readOnly` false, `openWorld` true, `untrusted`, `reads_private` true).
 */
describe('the floor of what a tool does and what its output is', () => {
  /** A read-only, closed-world feed whose output is trusted by default and not private. */
  const feed = defineTool({
    name: 'feed',
    version: '1.0.0',
    description: 'Test tool: reads a feed.',
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    input: z.strictObject({}),
    output: z.object({ text: z.string() }),
    handler: () => ({ text: '' }),
  });
  const strict: ToolSpec = {
    ...feed.spec,
    annotations: { ...feed.spec.annotations, readOnly: false, openWorld: true },
    output_trust: 'untrusted',
    reads_private: true,
  };
  const from = (patch: Partial<ToolSpec>): ToolSpec => ({ ...strict, ...patch });
  const without = (key: 'output_trust' | 'reads_private'): ToolSpec => {
    const { [key]: _, ...rest } = strict;
    return rest;
  };

  test.each([
    [
      'readOnly false -> true',
      from({ annotations: { ...strict.annotations, readOnly: true } }),
      ['annotations.readOnly'],
    ],
    [
      'openWorld true -> false (output_trust still untrusted)',
      from({ annotations: { ...strict.annotations, openWorld: false } }),
      ['annotations.openWorld'],
    ],
    ['output untrusted -> trusted', from({ output_trust: 'trusted' }), ['output_trust']],
    ['reads_private true -> false', from({ reads_private: false }), ['reads_private']],
    ['reads_private true -> absent (false)', without('reads_private'), ['reads_private']],
    [
      'output_trust dropped by a closed-world tool without network: its default is trusted',
      {
        ...without('output_trust'),
        annotations: { ...strict.annotations, openWorld: false },
      },
      ['annotations.openWorld', 'output_trust'],
    ],
  ])('%s lowers safety', (_what, to, lowered) => {
    expect(diffSpecs(strict, to).lowered).toEqual(lowered);
  });

  test.each([
    [
      'output_trust dropped by an open-world tool: its default is untrusted',
      without('output_trust'),
    ],
    ['the same spec', strict],
  ])('%s lowers nothing', (_what, to) => {
    expect(diffSpecs(strict, to).lowered).toEqual([]);
  });

  test('a trusted output, absent or declared, is the same: neither lowers the other', () => {
    const { output_trust: _, ...absent } = feed.spec;
    expect(diffSpecs(absent as ToolSpec, feed.spec).lowered).toEqual([]);
    expect(diffSpecs(feed.spec, absent as ToolSpec).lowered).toEqual([]);
  });

  test('raising every one of them lowers nothing', () => {
    expect(diffSpecs(feed.spec, strict).lowered).toEqual([]);
  });

  test('a laxer spec is reported and enforced with each stricter setting put back', () => {
    const floors = new SafetyFloors();
    floors.admit('feed', strict, 'sha-strict');
    const laxer: ToolSpec = { ...feed.spec, version: '2.0.0' };
    expect(floors.admit('feed', laxer, 'sha-laxer')).toMatchObject({
      lowered: ['annotations.readOnly', 'annotations.openWorld', 'output_trust', 'reads_private'],
      changes: [
        'annotations.openWorld',
        'annotations.readOnly',
        'output_trust',
        'reads_private',
        'version',
      ],
    });
    const enforced = floors.enforce('feed', laxer, 'sha-laxer');
    expect(enforced.held).toEqual([
      'annotations.readOnly',
      'annotations.openWorld',
      'output_trust',
      'reads_private',
    ]);
    expect(enforced.spec).toMatchObject({
      version: '2.0.0',
      annotations: { readOnly: false, openWorld: true, destructive: false },
      output_trust: 'untrusted',
      reads_private: true,
    });
    expect(enforced.specSha256).not.toBe('sha-laxer');
  });

  test('an output held untrusted stays untrusted when only its default would have changed', () => {
    const floors = new SafetyFloors();
    const open = without('output_trust');
    floors.admit('feed', open, 'sha-open');
    // closed-world now, still no output_trust: by default trusted, so the floor says untrusted
    const closed: ToolSpec = { ...open, annotations: { ...open.annotations, openWorld: false } };
    const enforced = floors.enforce('feed', closed, 'sha-closed');
    expect(enforced.held).toEqual(['annotations.openWorld', 'output_trust']);
    expect(enforced.spec.output_trust).toBe('untrusted');
    expect(enforced.spec.annotations.openWorld).toBe(true);
  });

  test('a stricter spec raises each for good: the laxer first spec is then held', () => {
    const floors = new SafetyFloors();
    floors.admit('feed', feed.spec, feed.specSha256);
    expect(floors.admit('feed', strict, 'sha-strict').lowered).toEqual([]);
    expect(floors.enforce('feed', feed.spec, feed.specSha256).held).toEqual([
      'annotations.readOnly',
      'annotations.openWorld',
      'output_trust',
      'reads_private',
    ]);
  });
});
