import { canonicalJson, specSha256, type ToolSpec } from '../../protocol/index.js';
import { deepFreeze } from './instance.js';

/** A safety setting the registry can hold at a stricter value than a spec declares. */
export type SafetyField = 'hitl' | 'annotations.destructive' | 'input_schema';

/** How a spec differs from the one trusted before it. */
export interface SpecDiff {
  /** Every differing field (top-level keys; `annotations.<key>` inside annotations), sorted. */
  readonly changes: readonly string[];
  /**
   * The changes that would lower safety: hitl confirm -> autonomous, destructive dropped,
   * and any other input schema (looser cannot be told from stricter, so every change counts).
   */
  readonly lowered: readonly SafetyField[];
}

/** The safety settings one check compares. */
interface Settings {
  hitl: ToolSpec['hitl'];
  destructive: boolean;
  /** Canonical JSON of the input schema. */
  inputKey: string;
}

/** The strictest safety settings confirmed for one tool name since the brain started. */
interface Floor extends Settings {
  /** The first confirmed spec: where the input schema comes from, and what diffs name. */
  first: ToolSpec;
  firstSha: string;
}

/** The spec the brain enforces for a tool, and which settings it holds stricter. */
export interface EnforcedSpec {
  readonly spec: ToolSpec;
  readonly specSha256: string;
  /** Settings kept from an earlier spec because the declared one would lower safety. */
  readonly held: readonly SafetyField[];
}

const settingsOf = (spec: ToolSpec): Settings => ({
  hitl: spec.hitl,
  destructive: spec.annotations.destructive,
  inputKey: canonicalJson(spec.input_schema),
});

function lowering(from: Settings, to: ToolSpec): SafetyField[] {
  const out: SafetyField[] = [];
  if (from.hitl === 'confirm' && to.hitl !== 'confirm') out.push('hitl');
  if (from.destructive && !to.annotations.destructive) out.push('annotations.destructive');
  if (from.inputKey !== canonicalJson(to.input_schema)) out.push('input_schema');
  return out;
}

/** Compares `to` with `from`, field by field. */
export function diffSpecs(from: ToolSpec, to: ToolSpec): SpecDiff {
  const changes: string[] = [];
  const differs = (a: unknown, b: unknown) => canonicalJson(a) !== canonicalJson(b);
  const fromRec = from as Record<string, unknown>;
  const toRec = to as Record<string, unknown>;
  for (const k of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (k !== 'annotations') {
      if (differs(fromRec[k], toRec[k])) changes.push(k);
      continue;
    }
    const a = from.annotations as Record<string, unknown>;
    const b = to.annotations as Record<string, unknown>;
    for (const ak of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (differs(a[ak], b[ak])) changes.push(`annotations.${ak}`);
    }
  }
  return { changes: changes.sort(), lowered: lowering(settingsOf(from), to) };
}

/**
 * Per tool name, for the life of the brain process, the strictest safety settings any
 * confirmed spec declared (docs/adr/0007-registry-trust.md). The first confirmed spec sets
 * them; a later one may raise `hitl` to confirm or `destructive` to true, never lower them,
 * and never replace the input schema. Adopting a lowering takes the operator: a restart.
 */
export class SafetyFloors {
  readonly #floors = new Map<string, Floor>();

  /**
   * Records a newly confirmed spec of `tool`: the first sets the floor, a stricter one raises
   * it. Returns how it differs from the first spec and what it would lower against the floor
   * (nothing for the first spec, or for a spec that lowers nothing).
   */
  admit(
    tool: string,
    spec: ToolSpec,
    sha: string,
  ): SpecDiff & { fromVersion: string; fromSha: string } {
    const floor = this.#floors.get(tool);
    if (!floor) {
      this.#floors.set(tool, { ...settingsOf(spec), first: spec, firstSha: sha });
      return { changes: [], lowered: [], fromVersion: spec.version, fromSha: sha };
    }
    const lowered = sha === floor.firstSha ? [] : lowering(floor, spec);
    if (spec.hitl === 'confirm') floor.hitl = 'confirm';
    if (spec.annotations.destructive) floor.destructive = true;
    const changes = lowered.length === 0 ? [] : diffSpecs(floor.first, spec).changes;
    return { changes, lowered, fromVersion: floor.first.version, fromSha: floor.firstSha };
  }

  /** `spec` with every setting the floor of `tool` holds stricter put back. */
  enforce(tool: string, spec: ToolSpec, sha: string): EnforcedSpec {
    const floor = this.#floors.get(tool);
    const held = floor ? lowering(floor, spec) : [];
    if (!floor || held.length === 0) return { spec, specSha256: sha, held };
    const enforced: ToolSpec = {
      ...spec,
      hitl: held.includes('hitl') ? 'confirm' : spec.hitl,
      annotations: held.includes('annotations.destructive')
        ? { ...spec.annotations, destructive: true }
        : spec.annotations,
      input_schema: held.includes('input_schema') ? floor.first.input_schema : spec.input_schema,
    };
    return { spec: deepFreeze(enforced), specSha256: specSha256(enforced), held };
  }
}
