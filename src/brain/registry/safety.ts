import { canonicalJson, specOutputTrust, specSha256, type ToolSpec } from '../../protocol/index.js';
import { deepFreeze } from './instance.js';

/** A safety setting the registry can hold at a stricter value than a spec declares. */
export type SafetyField =
  | 'hitl'
  | 'annotations.destructive'
  | 'input_schema'
  | 'annotations.readOnly'
  | 'annotations.openWorld'
  | 'output_trust'
  | 'reads_private';

/** How a spec differs from the one trusted before it. */
export interface SpecDiff {
  /** Every differing field (top-level keys; `annotations.<key>` inside annotations), sorted. */
  readonly changes: readonly string[];
  /**
   * The changes that would lower safety: hitl confirm -> autonomous, destructive dropped,
   * any other input schema (looser cannot be told from stricter, so every change counts),
   * readOnly false -> true, openWorld true -> false, the output's effective trust untrusted ->
   * trusted, reads_private true -> false (ADR 0067).
   */
  readonly lowered: readonly SafetyField[];
}

/** The safety settings one check compares. */
interface Settings {
  hitl: ToolSpec['hitl'];
  destructive: boolean;
  /** Canonical JSON of the input schema. */
  inputKey: string;
  readOnly: boolean;
  openWorld: boolean;
  /** The effective trust: a spec without `output_trust` counts as `specOutputTrust` says. */
  outputTrust: 'trusted' | 'untrusted';
  /** Absent counts as false. */
  readsPrivate: boolean;
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
  readOnly: spec.annotations.readOnly,
  openWorld: spec.annotations.openWorld,
  outputTrust: specOutputTrust(spec),
  readsPrivate: spec.reads_private === true,
});

function lowering(from: Settings, to: ToolSpec): SafetyField[] {
  const out: SafetyField[] = [];
  if (from.hitl === 'confirm' && to.hitl !== 'confirm') out.push('hitl');
  if (from.destructive && !to.annotations.destructive) out.push('annotations.destructive');
  if (from.inputKey !== canonicalJson(to.input_schema)) out.push('input_schema');
  if (!from.readOnly && to.annotations.readOnly) out.push('annotations.readOnly');
  if (from.openWorld && !to.annotations.openWorld) out.push('annotations.openWorld');
  if (from.outputTrust === 'untrusted' && specOutputTrust(to) === 'trusted') {
    out.push('output_trust');
  }
  if (from.readsPrivate && to.reads_private !== true) out.push('reads_private');
  return out;
}

/** Raises `floor` to every stricter setting `spec` declares (never lowers one). */
function raise(floor: Settings, spec: ToolSpec): void {
  const s = settingsOf(spec);
  if (s.hitl === 'confirm') floor.hitl = 'confirm';
  if (s.destructive) floor.destructive = true;
  if (!s.readOnly) floor.readOnly = false;
  if (s.openWorld) floor.openWorld = true;
  if (s.outputTrust === 'untrusted') floor.outputTrust = 'untrusted';
  if (s.readsPrivate) floor.readsPrivate = true;
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
 * confirmed spec declared (docs/adr/0007-registry-trust.md, 0067). The first confirmed spec
 * sets them; a later one may raise `hitl` to confirm, `destructive` to true, `readOnly` to
 * false, `openWorld` to true, its output to untrusted and `reads_private` to true, never
 * lower them, and never replace the input schema. Adopting a lowering takes the operator: a
 * restart.
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
    raise(floor, spec);
    const changes = lowered.length === 0 ? [] : diffSpecs(floor.first, spec).changes;
    return { changes, lowered, fromVersion: floor.first.version, fromSha: floor.firstSha };
  }

  /** `spec` with every setting the floor of `tool` holds stricter put back. */
  enforce(tool: string, spec: ToolSpec, sha: string): EnforcedSpec {
    const floor = this.#floors.get(tool);
    const held = floor ? lowering(floor, spec) : [];
    if (!floor || held.length === 0) return { spec, specSha256: sha, held };
    const enforced = putBack(spec, held, floor);
    return { spec: deepFreeze(enforced), specSha256: specSha256(enforced), held };
  }
}

/** `spec` with each `held` setting at the floor's value. */
function putBack(spec: ToolSpec, held: readonly SafetyField[], floor: Floor): ToolSpec {
  const has = (f: SafetyField) => held.includes(f);
  const annotations = {
    ...spec.annotations,
    ...(has('annotations.destructive') ? { destructive: true } : {}),
    ...(has('annotations.readOnly') ? { readOnly: false } : {}),
    ...(has('annotations.openWorld') ? { openWorld: true } : {}),
  };
  return {
    ...spec,
    hitl: has('hitl') ? 'confirm' : spec.hitl,
    annotations,
    input_schema: has('input_schema') ? floor.first.input_schema : spec.input_schema,
    ...(has('output_trust') ? { output_trust: 'untrusted' as const } : {}),
    ...(has('reads_private') ? { reads_private: true } : {}),
  };
}
