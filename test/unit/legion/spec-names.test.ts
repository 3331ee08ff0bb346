import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolDefinitionError } from '../../../src/legion/index.js';

/** A definition in defineTool's own names, without the fields the tests give either way. */
const core = {
  name: 'shield',
  version: '0.1.0',
  description: 'Computes a shielding factor.',
  input: z.strictObject({ layers: z.array(z.number()) }),
  output: z.object({ factor: z.number() }),
  annotations: { readOnly: true, openWorld: false },
  handler: () => ({ factor: 1 }),
};
const requirements = { cpu: 'low' as const, memory_mb: 64, network: false };
const ours = { ...core, executionLocality: 'local' as const, resourceRequirements: requirements };

function refusal(def: unknown): ToolDefinitionError {
  try {
    defineTool(def as typeof ours);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolDefinitionError);
    return err as ToolDefinitionError;
  }
  throw new Error('defineTool accepted it');
}

describe("the Colony document's names in a definition", () => {
  test('a definition written wholly in the document names gives the spec of our names', () => {
    const theirs = defineTool({
      ...core,
      execution_locality: 'hpc',
      resource_requirements: {
        ...requirements,
        min_vcpus: 8,
        min_memory_gb: 64,
        gpu: { kind: 'a100', count: 1, memory_gb: 40 },
        expected_wallclock_seconds: 2.5,
      },
      cost_model: { kind: 'metered', unit: '1 job' },
      licensing_notes: 'GPL-3.0; the solver binary is not shipped',
      hitl_frequency: 'approval_gates',
      determinism: 'seeded',
      interruptibility: true,
      headless: 'cli_only',
    });
    const mine = defineTool({
      ...core,
      executionLocality: 'remote_job',
      resourceRequirements: {
        ...requirements,
        min_vcpus: 8,
        min_memory_gb: 64,
        gpu: { required: true, kind: 'a100', count: 1, min_vram_gb: 40 },
        expected_wall_clock_ms: 2500,
      },
      costModel: { kind: 'metered', unit: '1 job' },
      licensingNotes: 'GPL-3.0; the solver binary is not shipped',
      hitl: 'confirm',
      determinism: 'nondeterministic',
      interruptibility: 'safe',
      headless: 'cli_only',
    });
    expect(theirs.spec).toEqual(mine.spec);
    expect(theirs.specSha256).toBe(mine.specSha256);
  });

  test.each([
    ['autonomous', 'autonomous'],
    ['review_milestones', 'confirm'],
    ['approval_gates', 'confirm'],
    ['co_pilot', 'confirm'],
    ['human_primary', 'confirm'],
  ] as const)('hitl_frequency %s is hitl %s', (frequency, hitl) => {
    expect(defineTool({ ...ours, hitl_frequency: frequency }).spec.hitl).toBe(hitl);
  });

  test.each([
    [false, 'unsafe'],
    [true, 'safe'],
  ] as const)('interruptibility %s is %s', (given, expected) => {
    expect(defineTool({ ...ours, interruptibility: given }).spec.interruptibility).toBe(expected);
  });

  test.each([
    ['stochastic', 'nondeterministic'],
    ['seeded', 'nondeterministic'],
    ['deterministic', 'deterministic'],
  ] as const)('determinism %s is %s', (given, expected) => {
    expect(defineTool({ ...ours, determinism: given }).spec.determinism).toBe(expected);
  });

  test('both names given alike are fine', () => {
    const spec = defineTool({
      ...ours,
      execution_locality: 'local',
      resource_requirements: requirements,
      licensingNotes: 'MIT',
      licensing_notes: 'MIT',
    }).spec;
    expect(spec).toMatchObject({ execution_locality: 'local', licensing_notes: 'MIT' });
  });

  test.each([
    [
      { execution_locality: 'lan' },
      'execution_locality',
      'executionLocality ("local") and execution_locality ("lan") differ; give one',
    ],
    [
      { resource_requirements: { ...requirements, memory_mb: 65 } },
      'resource_requirements',
      'resourceRequirements ({"cpu":"low","memory_mb":64,"network":false}) and resource_requirements',
    ],
    [
      { hitl: 'autonomous', hitl_frequency: 'co_pilot' },
      'hitl',
      'hitl ("autonomous") and hitl_frequency ("co_pilot") differ; give one',
    ],
    [
      { costModel: { kind: 'free' }, cost_model: { kind: 'metered' } },
      'cost_model',
      'costModel ({"kind":"free"}) and cost_model ({"kind":"metered"}) differ',
    ],
    [
      { licensingNotes: 'a', licensing_notes: 'b' },
      'licensing_notes',
      'licensingNotes ("a") and licensing_notes ("b") differ',
    ],
    [
      {
        resourceRequirements: { ...requirements, gpu: { min_vram_gb: 8, memory_gb: 16 } },
      },
      'resource_requirements.gpu.min_vram_gb',
      'min_vram_gb (8) and memory_gb (16) differ; give one',
    ],
    [
      {
        resourceRequirements: {
          ...requirements,
          expected_wall_clock_ms: 1000,
          expected_wallclock_seconds: 2,
        },
      },
      'resource_requirements.expected_wall_clock_ms',
      'expected_wall_clock_ms (1000) and expected_wallclock_seconds (2) differ; give one',
    ],
  ])('both names, different values: %j is refused naming both', (patch, path, message) => {
    const err = refusal({ ...ours, ...patch });
    expect(err.issues.map((i) => i.path)).toEqual([path]);
    expect(err.issues[0]?.message).toContain(message);
    expect(err.message).toContain("tool 'shield'");
  });

  test('a document value CAESAR has no counterpart for is refused by name', () => {
    const err = refusal({ ...ours, hitl_frequency: 'sometimes' });
    expect(err.issues).toEqual([
      { path: 'hitl', message: 'hitl_frequency ("sometimes") has no counterpart in CAESAR' },
    ]);
  });

  test('neither name given: the spec names the field it lacks', () => {
    const { executionLocality: _e, ...rest } = ours;
    expect(refusal(rest).issues.map((i) => i.path)).toEqual(['execution_locality']);
  });

  test('a value the wire refuses is refused at its wire path, whichever name carried it', () => {
    const err = refusal({ ...ours, resourceRequirements: { ...requirements, gpu: { count: 65 } } });
    expect(err.issues.map((i) => i.path)).toEqual(['resource_requirements.gpu.count']);
    const seconds = refusal({
      ...ours,
      resourceRequirements: { ...requirements, expected_wallclock_seconds: 11 },
    });
    expect(seconds.issues[0]?.path).toBe('resource_requirements.expected_wall_clock_ms');
    expect(seconds.issues[0]?.message).toMatch(/11000 ms.*timeoutMs \(10000 ms\)/);
  });
});
