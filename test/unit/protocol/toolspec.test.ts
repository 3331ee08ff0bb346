import { describe, expect, test } from 'vitest';
import {
  matchesTags,
  specDomain,
  specInterruptibility,
  specSha256,
  ToolSpecSchema,
  type ToolSpec,
} from '../../../src/protocol/index.js';

/** {@link older}'s sha256, computed once (ADR 0089): a change here breaks every older worker. */
const OLDER_SHA256 = '7e820f117c56fc4660c71c6572c3a66413fc642c31e33e1827c26adaf3bb6413';

/** A spec as protocol v1's first workers sent it: none of the later, optional fields. */
const older = {
  name: 'lamp',
  version: '1.0.0',
  title: 'Lamp',
  description: 'Switches the lamp.',
  tags: ['tool', 'home'],
  input_schema: { type: 'object' },
  output_schema: { type: 'object' },
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  determinism: 'deterministic',
  execution_locality: 'lan',
  resource_requirements: { cpu: 'low', memory_mb: 16, network: true },
  cost_model: { kind: 'free' },
  licensing: 'MIT',
  hitl: 'autonomous',
  timeout_ms: 5000,
  max_concurrency: 4,
  max_queue: 64,
} as const;

const complete = {
  ...older,
  domain: 'home',
  backend: 'home_assistant',
  capabilities: ['switch_devices'],
  interruptibility: 'unsafe',
  references: ['https://example.org/lamp'],
  extra: { protocol: 'zigbee', channels: 2, dimmable: true },
  licensing_notes: 'Attribution: the lamp vendor.',
  headless: 'native',
  execution_locality: 'remote_job',
  resource_requirements: {
    ...older.resource_requirements,
    min_vcpus: 0.5,
    min_memory_gb: 1,
    gpu: { required: false, count: 2, min_vram_gb: 4, kind: 'cuda' },
    expected_wall_clock_ms: 300,
  },
} as const;

/** {@link older} with a GPU requirement. */
const withGpu = (gpu: Record<string, unknown>) => ({
  resource_requirements: { ...older.resource_requirements, gpu },
});

const issuesOf = (value: unknown) => {
  const parsed = ToolSpecSchema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
};

describe('ToolSpecSchema', () => {
  test('an older spec without the later fields is still valid, unchanged, with the same sha256', () => {
    const parsed = ToolSpecSchema.parse(older);
    expect(parsed).toEqual(older);
    expect(specSha256(parsed)).toBe(specSha256(older as unknown as ToolSpec));
  });

  test("an older spec's digest is pinned: new optional fields never move an old worker's sha256", () => {
    expect(specSha256(ToolSpecSchema.parse(older))).toBe(OLDER_SHA256);
  });

  test('a spec with every field is valid', () => {
    expect(ToolSpecSchema.parse(complete)).toEqual(complete);
  });

  test('equal specs hash equal whatever the order of their keys', () => {
    const reordered = Object.fromEntries(Object.entries(complete).reverse()) as unknown as ToolSpec;
    expect(specSha256(reordered)).toBe(specSha256(complete as unknown as ToolSpec));
    const other = { ...complete, extra: { ...complete.extra, channels: 3 } };
    expect(specSha256(other as unknown as ToolSpec)).not.toBe(
      specSha256(complete as unknown as ToolSpec),
    );
  });

  const tooMany = (n: number, make: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => make(i));
  test.each([
    ['domain', { domain: 'Home' }],
    ['domain', { domain: 'x'.repeat(33) }],
    ['backend', { backend: 'searxng||brave' }],
    ['backend', { backend: 'Home Assistant' }],
    ['backend', { backend: tooMany(9, (i) => `b${i}`).join('|') }],
    ['capabilities', { capabilities: ['search', 'search'] }],
    ['capabilities', { capabilities: tooMany(17, (i) => `c${i}`) }],
    ['capabilities.0', { capabilities: ['Read Calendar'] }],
    ['interruptibility', { interruptibility: 'sometimes' }],
    ['references.0', { references: ['ftp://example.org/x'] }],
    ['references.0', { references: ['not a url'] }],
    ['references.0', { references: [`https://example.org/${'x'.repeat(500)}`] }],
    ['references', { references: tooMany(6, (i) => `https://example.org/${i}`) }],
    ['extra', { extra: Object.fromEntries(tooMany(17, (i) => `k${i}`).map((k) => [k, 1])) }],
    ['extra.Bad-Key', { extra: { 'Bad-Key': 1 } }],
    ['extra.nested', { extra: { nested: { a: 1 } } }],
    ['extra.note', { extra: { note: 'x'.repeat(201) } }],
    [
      'resource_requirements.min_vcpus',
      { resource_requirements: { ...older.resource_requirements, min_vcpus: 0 } },
    ],
    [
      'resource_requirements.min_memory_gb',
      { resource_requirements: { ...older.resource_requirements, min_memory_gb: -1 } },
    ],
    [
      'resource_requirements.gpu.required',
      { resource_requirements: { ...older.resource_requirements, gpu: {} } },
    ],
    [
      'resource_requirements.gpu.kind',
      {
        resource_requirements: {
          ...older.resource_requirements,
          gpu: { required: true, kind: 'NVIDIA A100' },
        },
      },
    ],
    ['licensing_notes', { licensing_notes: 'n'.repeat(501) }],
    ['headless', { headless: 'gui' }],
    ['execution_locality', { execution_locality: 'hpc' }],
    ['resource_requirements.gpu.count', withGpu({ required: true, count: 0 })],
    ['resource_requirements.gpu.count', withGpu({ required: true, count: 65 })],
    ['resource_requirements.gpu.count', withGpu({ required: true, count: 1.5 })],
    ['resource_requirements.gpu', withGpu({ required: true, memory_gb: 8 })],
    [
      'resource_requirements.expected_wall_clock_ms',
      { resource_requirements: { ...older.resource_requirements, expected_wall_clock_ms: 1.5 } },
    ],
    [
      'resource_requirements.expected_wall_clock_ms',
      {
        resource_requirements: { ...older.resource_requirements, expected_wall_clock_ms: 600_001 },
      },
    ],
  ])('a bad %s is refused at its path', (path, patch) => {
    expect(issuesOf({ ...older, ...patch })).toContain(path);
  });
});

describe('derived defaults for specs that lack the fields', () => {
  test.each([
    [['tool', 'home', 'network'], undefined, 'home'],
    [['tool'], undefined, 'general'],
    [['network', 'tool'], undefined, 'network'],
    [['tool', 'home'], 'calendar', 'calendar'],
  ])('tags %j with domain %s: domain %s', (tags, domain, expected) => {
    expect(specDomain({ tags, domain })).toBe(expected);
  });

  test.each([
    [true, undefined, 'safe'],
    [false, undefined, 'unsafe'],
    [false, 'safe', 'safe'],
  ] as const)('readOnly %s with interruptibility %s: %s', (readOnly, own, expected) => {
    const annotations = { ...older.annotations, readOnly };
    expect(specInterruptibility({ annotations, interruptibility: own })).toBe(expected);
  });
});

describe('matchesTags', () => {
  const tags = ['tool', 'home', 'network'];
  test.each([
    [{}, true],
    [{ includeTags: [] }, true],
    [{ includeTags: ['home'] }, true],
    [{ includeTags: ['home', 'network'] }, true],
    [{ includeTags: ['web', 'network'] }, false],
    [{ includeTags: ['web'] }, false],
    [{ includeTags: ['tool'] }, true],
    [{ includeTags: ['tool', 'home'] }, true],
    [{ includeTags: ['tool', 'web'] }, false],
    [{ excludeTags: ['network'] }, false],
    [{ excludeTags: ['web'] }, true],
    [{ excludeTags: ['web', 'home'] }, false],
    [{ includeTags: ['home'], excludeTags: ['network'] }, false],
    [{ includeTags: ['tool'], excludeTags: ['home'] }, false],
  ])('%j: %s', (filter, expected) => {
    expect(matchesTags(tags, filter)).toBe(expected);
  });

  // Colony's tool-capabilities document, its two examples verbatim
  const shelf = {
    calculator: ['tool', 'math'],
    em_fdtd: ['tool', 'hpc', 'physics'],
    shielding: ['tool', 'hpc'],
    web_search: ['tool', 'web', 'network'],
  };
  const pass = (filter: { includeTags: string[] }) =>
    Object.entries(shelf)
      .filter(([, t]) => matchesTags(t, filter))
      .map(([name]) => name);

  test('include_tags={"tool"} means all tools', () => {
    expect(pass({ includeTags: ['tool'] })).toEqual(Object.keys(shelf));
  });

  test('include_tags={"tool","hpc"} means "the HPC tools only"', () => {
    expect(pass({ includeTags: ['tool', 'hpc'] })).toEqual(['em_fdtd', 'shielding']);
  });

  test('a spec from the wire without tool is judged as if it carried it', () => {
    expect(matchesTags(['hpc'], { includeTags: ['tool', 'hpc'] })).toBe(true);
    expect(matchesTags(['hpc'], { excludeTags: ['tool'] })).toBe(false);
  });
});
