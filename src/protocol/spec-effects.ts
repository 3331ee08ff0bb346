import { isServiceCallTool } from './call-service.js';
import type { ToolSpec } from './toolspec.js';

/**
 * What a call of a tool does, as the policy's flow rules read it (ADR 0066): it changes state
 * (`call_service`, or a spec with `readOnly: false` or `destructive: true`), and it reaches
 * the open world (`openWorld: true`). A tool whose spec is not known is taken to do both: the
 * flow rules fail closed.
 */
export interface SpecEffects {
  readonly changesState: boolean;
  readonly openWorld: boolean;
}

export function specEffects(
  tool: string,
  spec: Pick<ToolSpec, 'annotations'> | undefined,
): SpecEffects {
  const a = spec?.annotations;
  if (a === undefined) return { changesState: true, openWorld: true };
  return {
    changesState: isServiceCallTool(tool) || !a.readOnly || a.destructive,
    openWorld: a.openWorld,
  };
}
