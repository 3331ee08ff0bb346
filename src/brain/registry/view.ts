import type { ToolSpec } from '../../protocol/index.js';
import type { ToolInstanceInfo } from './instance.js';
import { compareVersions } from './semver.js';

/** A live instance in the registry. */
export interface RegisteredInstance extends ToolInstanceInfo {
  /** Epoch ms when the registry learned of it. */
  readonly addedAt: number;
  /** How the registry learned of it. */
  readonly source: 'hello' | 'sweep';
}

/** A tool with at least one live instance. */
export interface RegisteredTool {
  readonly name: string;
  /**
   * The spec of the newest version among the live instances (SemVer precedence; between
   * two specs of the same version, the instance added last wins). Each instance keeps its
   * own `spec`, so a caller that must match a version can pick instances by it.
   */
  readonly spec: ToolSpec;
  readonly specSha256: string;
  /** Sorted by host, then id. */
  readonly instances: readonly RegisteredInstance[];
}

/** Builds the frozen snapshot of one tool from its live instances (at least one). */
export function buildToolView(
  name: string,
  instances: Iterable<RegisteredInstance>,
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
  return Object.freeze({
    name,
    spec: newest.spec,
    specSha256: newest.specSha256,
    instances: Object.freeze(list),
  });
}
