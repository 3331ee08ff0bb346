import type { SpecChangedEvent } from './events.js';
import type { ToolInstanceInfo } from './instance.js';
import { diffSpecs, SafetyFloors, type EnforcedSpec } from './safety.js';

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
    return this.#once(`${info.tool}:${info.specSha256}`, {
      tool: info.tool,
      instance: info.id,
      host: info.host,
      kind: 'lowers_safety',
      from_version: floor.fromVersion,
      to_version: info.version,
      from_sha256: floor.fromSha,
      to_sha256: info.specSha256,
      changes: [...floor.changes],
      lowered: [...floor.lowered],
      lowered_safety: true,
      adopted: false,
    });
  }

  /** A known instance confirmed another spec than `was`: it keeps `was`; this reports it. */
  instanceChanged(was: ToolInstanceInfo, info: ToolInstanceInfo): SpecChangedEvent | undefined {
    const diff = diffSpecs(was.spec, info.spec);
    return this.#once(`${info.tool}/${info.id}:${info.specSha256}`, {
      tool: info.tool,
      instance: info.id,
      host: info.host,
      kind: 'instance_spec_changed',
      from_version: was.version,
      to_version: info.version,
      from_sha256: was.specSha256,
      to_sha256: info.specSha256,
      changes: [...diff.changes],
      lowered: [...diff.lowered],
      lowered_safety: diff.lowered.length > 0,
      adopted: false,
    });
  }

  /** The spec the brain enforces for `tool` when `spec` is its newest. */
  enforce(tool: string, spec: ToolInstanceInfo['spec'], sha: string): EnforcedSpec {
    return this.#floors.enforce(tool, spec, sha);
  }

  #once(dedupe: string, event: SpecChangedEvent): SpecChangedEvent | undefined {
    if (this.#reported.has(dedupe)) return undefined;
    if (this.#reported.size >= MAX_REPORTED) this.#reported.clear();
    this.#reported.add(dedupe);
    return event;
  }
}

/** The log line of a report: what happened and the operator's next step. */
export function specChangeMessage(event: SpecChangedEvent): string {
  return event.kind === 'instance_spec_changed'
    ? `instance ${event.instance} of ${event.tool} now claims another spec under the same id; ` +
        'it keeps the spec it first confirmed (a running worker never changes its spec: ' +
        `check who holds the NKEY of ${event.tool})`
    : `a new instance of ${event.tool} declares a spec that lowers safety ` +
        `(${event.lowered.join(', ')}); the brain keeps the earlier settings. ` +
        'If the change is intended, restart the brain to adopt it';
}
