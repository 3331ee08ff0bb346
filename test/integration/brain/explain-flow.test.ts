import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defineTool } from '../../../src/legion/index.js';
import { startBrainParts, type BrainParts } from '../../helpers/brain-parts.js';

/**
 * Issue 27, scope 2: `POST /v1/policy/explain` with `flow` judges a call as a model's, the
 * tool's effects taken from the spec the live worker announced (not from the caller), through
 * the real gateway, registry and policy file.
 */
const tool = (name: string, annotations: { readOnly: boolean; openWorld: boolean }) =>
  defineTool({
    name,
    version: '1.0.0',
    description: `Test tool ${name}.`,
    annotations: { ...annotations, destructive: false, idempotent: true },
    executionLocality: 'local',
    resourceRequirements: { cpu: 'low', memory_mb: 16, network: false },
    input: z.object({ text: z.string().optional() }),
    output: z.object({ ok: z.boolean() }),
    handler: () => Promise.resolve({ ok: true }),
  });

const POLICY = `version: 1
flow:
  after_private: deny
allowed_tools:
  - tool: notes
  - tool: lookup
  - tool: ghost
`;

describe('explain as a model call, with the live tool spec', () => {
  let parts: BrainParts;
  beforeAll(async () => {
    parts = await startBrainParts({
      policy: POLICY,
      tools: [
        tool('notes', { readOnly: false, openWorld: false }),
        tool('lookup', { readOnly: true, openWorld: true }),
      ],
    });
  });
  afterAll(async () => {
    await parts?.close();
  });

  const read = (u: boolean, p: boolean) => ({
    after_untrusted: u,
    after_private: p,
    shares_private_words: true,
  });

  test('without flow nothing is gated', () => {
    const { decision } = parts.gateway.explain('notes', {});
    expect(decision.outcome).toBe('allow');
    expect(decision.flow).toBeUndefined();
  });

  test('a tool whose spec says it writes is held after untrusted content', () => {
    const { decision, trace } = parts.gateway.explain('notes', {}, read(true, true));
    expect(decision).toMatchObject({
      outcome: 'confirm',
      flow: [{ gate: 'after_untrusted', action: 'confirm', set_by: 'flow default' }],
    });
    // closed-world: the private gate does not apply, and the trace says why
    expect(trace).toContainEqual(
      expect.objectContaining({
        gate: 'after_private',
        result: 'not_matched',
        detail: 'the tool does not reach outside (not open-world)',
      }),
    );
  });

  test('a read-only open-world tool is not held after untrusted content, and denied after private data', () => {
    expect(parts.gateway.explain('lookup', {}, read(true, false)).decision.outcome).toBe('allow');
    const { decision } = parts.gateway.explain('lookup', { text: 'x' }, read(false, true));
    expect(decision.outcome).toBe('deny');
    expect(decision.flow).toEqual([
      {
        gate: 'after_private',
        action: 'deny',
        set_by: expect.stringMatching(
          /^flow\.after_private \(.*policy\.yaml:3:3 in policy sha256 /,
        ),
      },
    ]);
  });

  test('a tool no worker serves is taken to write and reach outside (fail closed)', () => {
    const { decision } = parts.gateway.explain('ghost', {}, read(true, true));
    expect(decision.outcome).toBe('deny');
    expect(decision.flow?.map((v) => v.gate)).toEqual(['after_untrusted', 'after_private']);
  });
});
