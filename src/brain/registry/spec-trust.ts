import type { SpecChangedEvent } from './events.js';
import type { ToolInstanceInfo } from './instance.js';
import { diffSpecs, SafetyFloors, type EnforcedSpec, type SpecDiff } from './safety.js';

/** spec_changed reports remembered (so each is made once); forgotten all at once past this. */
const MAX_REPORTED = 1024;

/**
 * What the registry makes of confirmed specs (docs/adr/0007-registry-trust.md): the safety
 * floor of each tool, and the `spec_changed` reports, each distinct change once.
 */
export class SpecTrust {
  readonly #floors = new SafetyFloors();
  readonly #reported = new Set<string>();

  /** A new instance's spec: sets or raises its tool's floor; a report when it would lower it. */
  admitNew(info: ToolInstanceInfo): SpecChangedEvent | undefined {
    const floor = this.#floors.admit(info.tool, info.spec, info.specSha256);
    if (floor.lowered.length === 0) return undefined;
    const from = { version: floor.fromVersion, specSha256: floor.fromSha };
    return this.#once(`${info.tool}:${info.specSha256}`, () =>
      changeReport('lowers_safety', from, info, floor),
    );
  }

  /** A known instance confirmed another spec than `was`: it keeps `was`; this reports it. */
  instanceChanged(was: ToolInstanceInfo, info: ToolInstanceInfo): SpecChangedEvent | undefined {
    return this.#once(`${info.tool}/${info.id}:${info.specSha256}`, () =>
      changeReport('instance_spec_changed', was, info, diffSpecs(was.spec, info.spec)),
    );
  }

  /** The spec the brain enforces for `tool` when `spec` is its newest. */
  enforce(tool: string, spec: ToolInstanceInfo['spec'], sha: string): EnforcedSpec {
    return this.#floors.enforce(tool, spec, sha);
  }

  #once(dedupe: string, report: () => SpecChangedEvent): SpecChangedEvent | undefined {
    if (this.#reported.has(dedupe)) return undefined;
    if (this.#reported.size >= MAX_REPORTED) this.#reported.clear();
    this.#reported.add(dedupe);
    return report();
  }
}

/** The one shape of a report: `info` declared a spec that was not adopted against `from`. */
function changeReport(
  kind: SpecChangedEvent['kind'],
  from: Pick<ToolInstanceInfo, 'version' | 'specSha256'>,
  info: ToolInstanceInfo,
  diff: SpecDiff,
): SpecChangedEvent {
  return {
    tool: info.tool,
    instance: info.id,
    host: info.host,
    kind,
    from_version: from.version,
    to_version: info.version,
    from_sha256: from.specSha256,
    to_sha256: info.specSha256,
    changes: [...diff.changes],
    lowered: [...diff.lowered],
    lowered_safety: diff.lowered.length > 0,
    adopted: false,
  };
}
