import { unknownToolWarnings, type CompiledPolicy, type PolicyIssue } from '../../policy/index.js';

/** Where the brain learns which tools exist. */
export interface KnownToolSources {
  /** The live tools; a Registry is one. */
  readonly registry: { tools(): readonly { readonly name: string }[] };
  /** The tools this build ships (`workers/index.ts`); none when not handed in. */
  readonly shipped?: readonly string[];
  /**
   * The catalog's entries that name a module or a host (ADR 0090), read at start: tools the
   * operator has, whether or not a worker serves them yet. @default none
   */
  readonly catalogued?: readonly string[];
  /** The catalog's planned stubs: known by name, not callable yet. @default none */
  readonly planned?: readonly string[];
  /**
   * `brain.trusted_workers`: tools whose workers' keys are pinned. Under `caesar up` these are
   * every tool of the stack, an operator's own modules included, before their workers start.
   */
  readonly trusted: Readonly<Record<string, unknown>>;
}

/**
 * Every tool name the brain knows exists now: the shipped, the catalogued, the pinned and the
 * live ones (a planned stub is known apart: it does not exist yet).
 */
export function knownToolNames(sources: KnownToolSources): string[] {
  return [
    ...(sources.shipped ?? []),
    ...(sources.catalogued ?? []),
    ...Object.keys(sources.trusted),
    ...sources.registry.tools().map((t) => t.name),
  ];
}

/**
 * The warnings the brain gives for the enforced policy: the policy's own (a rule that never
 * applies, an empty file) and one per tool rule naming a tool no worker serves and no catalog
 * lists, with the closest known name, or naming a planned stub, which is not callable yet.
 */
export function policyWarnings(
  policy: Pick<CompiledPolicy, 'warnings' | 'toolMentions'>,
  sources: KnownToolSources,
): PolicyIssue[] {
  const tools = unknownToolWarnings(policy.toolMentions, knownToolNames(sources), {
    planned: sources.planned ?? [],
  });
  return [...policy.warnings, ...tools].sort((a, b) => a.line - b.line || a.column - b.column);
}
