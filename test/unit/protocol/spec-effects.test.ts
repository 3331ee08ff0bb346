import { describe, expect, test } from 'vitest';
import { specEffects, type ToolAnnotations } from '../../../src/protocol/index.js';

const hints = (over: Partial<ToolAnnotations>): { annotations: ToolAnnotations } => ({
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, ...over },
});

describe('specEffects: what a call does, as the flow rules read it', () => {
  test.each([
    ['a read-only closed-world tool (the calculator)', 'calculator', hints({}), false, false],
    [
      'a read-only open-world tool (web_search)',
      'web_search',
      hints({ openWorld: true }),
      false,
      true,
    ],
    ['a tool that writes', 'notes', hints({ readOnly: false }), true, false],
    [
      'a destructive tool, even one that says read-only',
      'wipe',
      hints({ destructive: true }),
      true,
      false,
    ],
    ['call_service, whatever its spec says', 'call_service', hints({}), true, false],
    ['a tool whose spec is not known: both (fail closed)', 'ghost', undefined, true, true],
  ])('%s', (_name, tool, spec, changesState, openWorld) => {
    expect(specEffects(tool, spec)).toEqual({ changesState, openWorld });
  });
});
