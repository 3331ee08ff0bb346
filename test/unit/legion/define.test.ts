import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolDefinitionError } from '../../../src/legion/index.js';
import { Limiter } from '../../../src/legion/limiter.js';
import { specSha256, ToolSpecSchema } from '../../../src/protocol/index.js';

const valid = {
  name: 'echo',
  version: '1.2.3',
  description: 'Echoes text.',
  input: z.strictObject({ text: z.string().describe('what to echo') }),
  output: z.object({ text: z.string() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  executionLocality: 'local' as const,
  resourceRequirements: { cpu: 'low' as const, memory_mb: 8, network: false },
  handler: (input: { text: string }) => ({ text: input.text }),
};

describe('defineTool', () => {
  test('derives the spec and JSON Schemas from the one declaration', () => {
    const tool = defineTool(valid);
    expect(tool.spec).toMatchObject({
      name: 'echo',
      title: 'echo',
      tags: ['tool'],
      determinism: 'deterministic',
      hitl: 'autonomous',
      timeout_ms: 10_000,
      input_schema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'what to echo' } },
        required: ['text'],
        additionalProperties: false,
      },
    });
    expect(tool.specSha256).toBe(specSha256(tool.spec));
    expect(Object.isFrozen(tool)).toBe(true);
  });

  test.each([
    ['name', { name: 'Bad Name' }],
    ['version', { version: 'v1' }],
    ['description', { description: '' }],
    ['annotations', { annotations: undefined }],
    ['execution_locality', { executionLocality: 'moon' }],
    ['resource_requirements', { resourceRequirements: { cpu: 'low' } }],
    ['timeout_ms', { timeoutMs: -5 }],
  ])('a definition with a bad %s fails at once and names the field', (field, patch) => {
    const err = (() => {
      try {
        defineTool({ ...valid, ...patch } as typeof valid);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ToolDefinitionError);
    expect((err as ToolDefinitionError).issues.map((i) => i.path.split('.')[0])).toContain(field);
  });

  test('fills the descriptive fields with their defaults', () => {
    const spec = defineTool(valid).spec;
    expect(spec).toMatchObject({
      domain: 'general',
      capabilities: [],
      interruptibility: 'safe',
      references: [],
      extra: {},
    });
    expect(spec).not.toHaveProperty('backend');
    expect(ToolSpecSchema.parse(spec)).toEqual(spec);
  });

  test.each([
    [{ tags: ['home', 'network'] }, 'home', 'safe'],
    [{ tags: ['tool', 'calendar'] }, 'calendar', 'safe'],
    [{ tags: ['home'], domain: 'lighting' }, 'lighting', 'safe'],
    [
      { annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true } },
      'general',
      'unsafe',
    ],
    [
      {
        annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
        interruptibility: 'safe' as const,
      },
      'general',
      'safe',
    ],
  ])('%j gives domain %s and interruptibility %s', (patch, domain, interruptibility) => {
    expect(defineTool({ ...valid, ...patch }).spec).toMatchObject({ domain, interruptibility });
  });

  test('keeps what the author declared, capabilities without repeats', () => {
    const spec = defineTool({
      ...valid,
      backend: 'searxng|brave',
      capabilities: ['search', 'summarise', 'search'],
      references: ['https://docs.example.org/echo'],
      extra: { upstream: 'echo-d', shards: 2, beta: false },
      resourceRequirements: {
        ...valid.resourceRequirements,
        min_vcpus: 2,
        min_memory_gb: 4,
        gpu: { required: true, min_vram_gb: 8, kind: 'cuda' },
        expected_wall_clock_ms: 1500,
      },
    }).spec;
    expect(spec).toMatchObject({
      backend: 'searxng|brave',
      capabilities: ['search', 'summarise'],
      references: ['https://docs.example.org/echo'],
      extra: { upstream: 'echo-d', shards: 2, beta: false },
      resource_requirements: {
        min_vcpus: 2,
        gpu: { required: true, min_vram_gb: 8, kind: 'cuda' },
        expected_wall_clock_ms: 1500,
      },
    });
  });

  test.each([
    [
      { readOnly: true, openWorld: false },
      { destructive: false, idempotent: true },
    ],
    [
      { readOnly: false, openWorld: true },
      { destructive: true, idempotent: false },
    ],
    [
      { readOnly: false, openWorld: false, destructive: false, idempotent: true },
      { destructive: false, idempotent: true },
    ],
  ])('annotations %j: destructive and idempotent follow readOnly unless given', (given, hints) => {
    const { spec } = defineTool({ ...valid, annotations: given });
    expect(spec.annotations).toEqual({ ...given, ...hints });
  });

  test('equal declarations give equal specs and digests', () => {
    const a = defineTool({ ...valid, capabilities: ['echo'], extra: { a: 1, b: 'x' } });
    const b = defineTool({ ...valid, capabilities: ['echo'], extra: { b: 'x', a: 1 } });
    expect(b.specSha256).toBe(a.specSha256);
  });

  test.each([
    ['domain', { domain: 'Home Automation' }],
    ['backend', { backend: 'Home Assistant' }],
    ['capabilities', { capabilities: 'search' }],
    ['capabilities', { capabilities: ['Search the web'] }],
    ['interruptibility', { interruptibility: 'never' }],
    ['references', { references: ['file:///etc/passwd'] }],
    ['extra', { extra: { nested: { deep: true } } }],
    [
      'resource_requirements',
      { resourceRequirements: { ...valid.resourceRequirements, gpu: { kind: 'cuda', count: 0 } } },
    ],
    ['licensing_notes', { licensingNotes: 'n'.repeat(501) }],
    ['headless', { headless: 'mostly' }],
    [
      'resource_requirements',
      { resourceRequirements: { ...valid.resourceRequirements, expected_wall_clock_ms: 20_000 } },
    ],
  ])('a bad %s fails at once and names the field', (field, patch) => {
    const err = (() => {
      try {
        defineTool({ ...valid, ...patch } as typeof valid);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ToolDefinitionError);
    expect((err as ToolDefinitionError).issues.map((i) => i.path.split(/[.[]/)[0])).toEqual([
      field,
    ]);
  });

  test.each([
    ['a closed-world tool without network', {}, 'trusted'],
    ['an open-world tool', { annotations: { ...valid.annotations, openWorld: true } }, 'untrusted'],
    [
      'a closed-world tool that uses the network',
      { resourceRequirements: { ...valid.resourceRequirements, network: true } },
      'untrusted',
    ],
    ['one that declares untrusted', { outputTrust: 'untrusted' as const }, 'untrusted'],
    [
      'an open-world one that declares trusted',
      { annotations: { ...valid.annotations, openWorld: true }, outputTrust: 'trusted' as const },
      'trusted',
    ],
  ])('%s: the spec always says its output trust (%s) and reads_private', (_, patch, trust) => {
    const spec = defineTool({ ...valid, ...patch }).spec;
    expect(spec.output_trust).toBe(trust);
    expect(spec.reads_private).toBe(false);
    expect(ToolSpecSchema.parse(spec)).toEqual(spec);
  });

  test('readsPrivate is carried into the spec', () => {
    expect(defineTool({ ...valid, readsPrivate: true }).spec.reads_private).toBe(true);
  });

  test.each([
    ['output_trust', { outputTrust: 'maybe' }],
    ['output_trust', { outputTrust: true }],
    ['reads_private', { readsPrivate: 'yes' }],
  ])('a bad %s fails at once and names the field (%j)', (field, patch) => {
    const err = (() => {
      try {
        defineTool({ ...valid, ...patch } as typeof valid);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ToolDefinitionError);
    expect((err as ToolDefinitionError).issues.map((i) => i.path)).toEqual([field]);
  });

  test('fills licensing_notes and headless, and a GPU its count and required', () => {
    const spec = defineTool({
      ...valid,
      resourceRequirements: { ...valid.resourceRequirements, gpu: { kind: 'cuda' } },
    }).spec;
    expect(spec).toMatchObject({
      licensing: 'Apache-2.0',
      licensing_notes: '',
      headless: 'native',
    });
    expect(spec.resource_requirements.gpu).toEqual({ kind: 'cuda', count: 1, required: true });
    expect(ToolSpecSchema.parse(spec)).toEqual(spec);
  });

  test('the spec is frozen to its leaves: a write throws, nested or not', () => {
    const t = defineTool({
      ...valid,
      capabilities: ['echo'],
      extra: { shards: 2 },
      resourceRequirements: { ...valid.resourceRequirements, gpu: { kind: 'cuda', count: 1 } },
    });
    const spec = t.spec;
    const schema = spec.input_schema as { properties: { text: { type: string } } };
    const annotations: Partial<typeof spec.annotations> = spec.annotations;
    expect(() => {
      spec.name = 'x';
    }).toThrow(TypeError);
    expect(() => {
      spec.resource_requirements.gpu!.count = 9;
    }).toThrow(TypeError);
    expect(() => spec.tags.push('more')).toThrow(TypeError);
    expect(() => {
      spec.extra!.shards = 3;
    }).toThrow(TypeError);
    expect(() => {
      schema.properties.text.type = 'number';
    }).toThrow(TypeError);
    expect(() => {
      delete annotations.readOnly;
    }).toThrow(TypeError);
    expect(t.specSha256).toBe(specSha256(t.spec));
    expect(t.spec.name).toBe('echo');
  });

  test("freezing the spec leaves the author's own objects alone", () => {
    const written = { type: 'object', properties: { text: { type: 'string' } } };
    const extra = { shards: 2 };
    const t = defineTool({ ...valid, input: z.unknown().meta(written), extra } as never);
    expect((t as { spec: { input_schema: unknown } }).spec.input_schema).toMatchObject(written);
    expect(Object.isFrozen(written)).toBe(false);
    expect(Object.isFrozen(written.properties.text)).toBe(false);
    expect(Object.isFrozen(extra)).toBe(false);
  });

  test('a schema that has no JSON Schema form is refused at definition time', () => {
    expect(() => defineTool({ ...valid, input: z.object({ when: z.date() }) } as never)).toThrow(
      /JSON Schema/,
    );
  });
});

describe('Limiter', () => {
  test('runs up to the cap, queues up to the bound, refuses the rest, hands slots over FIFO', async () => {
    const l = new Limiter(1, 1);
    const signal = new AbortController().signal;
    expect(l.acquire(signal)).toBe(true);
    const waiting = l.acquire(signal);
    expect(waiting).toBeInstanceOf(Promise);
    expect(l.acquire(signal)).toBe(false);
    l.release();
    await waiting;
    expect([l.active, l.queued]).toEqual([1, 0]);
    l.release();
    expect(l.active).toBe(0);
  });

  test('a waiter that gives up leaves the queue with the abort reason', async () => {
    const l = new Limiter(1, 5);
    expect(l.acquire(new AbortController().signal)).toBe(true);
    const ac = new AbortController();
    const waiting = l.acquire(ac.signal) as Promise<void>;
    ac.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(l.queued).toBe(0);
  });
});
