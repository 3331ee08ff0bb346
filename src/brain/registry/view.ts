import type { ToolSpec } from '../../protocol/index.js';
import type { ToolInstanceInfo } from './instance.js';
import type { SafetyField, SafetyFloors } from './safety.js';
import { compareVersions } from './semver.js';

/** A live instance in the registry. */
export interface RegisteredInstance extends ToolInstanceInfo {
  /** Epoch ms when the registry learned of it. */
  readonly addedAt: number;
  /** How the registry learned of it: a hello, a sweep, or a reply that named it (ADR 0060). */
  readonly source: 'hello' | 'sweep' | 'reply';
}

/** A tool with at least one live instance. */
export interface RegisteredTool {
  readonly name: string;
  /**
   * The spec of the newest version among the live instances (SemVer precedence; between
   * two specs of the same version, the instance added last wins), with the safety settings
   * the registry holds stricter (`held`) put back. Each instance keeps its own `spec`, so a
   * caller that must match a version can pick instances by it.
   */
  readonly spec: ToolSpec;
  /** sha256 of `spec` as enforced (the instance's own sha when nothing is held). */
  readonly specSha256: string;
  /**
   * Settings of the newest spec that would lower safety against an earlier confirmed spec of
   * this tool, kept at the earlier value until the brain restarts (docs/adr/0007).
   */
  readonly held: readonly SafetyField[];
  /** Sorted by host, then id. */
  readonly instances: readonly RegisteredInstance[];
}

/** Builds the frozen snapshot of one tool from its live instances (at least one). */
export function buildToolView(
  name: string,
  instances: Iterable<RegisteredInstance>,
  trust: Pick<SafetyFloors, 'enforce'>,
): RegisteredTool | undefined {
  const list = [...instances];
  let newest: RegisteredInstance | undefined;
  for (const inst of list) {
    if (!newest) {
      newest = inst;
      continue;
    }
    const d = compareVersions(inst.version, newest.version);
    if (d > 0 || (d === 0 && inst.addedAt >= newest.addedAt)) newest = inst;
  }
  if (!newest) return undefined;
  list.sort((a, b) =>
    a.host === b.host ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.host < b.host ? -1 : 1,
  );
  const enforced = trust.enforce(name, newest.spec, newest.specSha256);
  return Object.freeze({
    name,
    spec: enforced.spec,
    specSha256: enforced.specSha256,
    held: Object.freeze([...enforced.held]),
    instances: Object.freeze(list),
  });
}
