import type { SafetyField } from './safety.js';
import type { RegisteredInstance } from './view.js';

/** What the registry reports, as `Registry` events (docs/adr/0005, docs/adr/0007). */

export type RemovalReason = 'bye' | 'missed_sweeps';

interface InstanceAddedEvent {
  tool: string;
  instance: RegisteredInstance;
}

interface InstanceRemovedEvent {
  tool: string;
  instance: RegisteredInstance;
  reason: RemovalReason;
  /** True when this was the tool's last instance: the tool is gone. */
  toolRemoved: boolean;
  /** For `missed_sweeps`: the sequence number of the sweep that dropped it. */
  sweep?: number;
}

export interface SweepEvent {
  /** 1 for the initial sweep in `start()`, then +1 per sweep. */
  seq: number;
  durationMs: number;
  /** Valid CAESAR INFO replies to the generic `$SRV.INFO`: hints, not yet facts. */
  replies: number;
  /** CAESAR INFO replies that failed validation. */
  invalid: number;
  /** Hints whose instance did not confirm them on its own `$SRV` subject: not believed. */
  unconfirmed: number;
  /** False when misses were not counted (disconnected during the sweep, or a reconnect sweep). */
  countedMisses: boolean;
}

/** A bye for an instance that still answered its own `$SRV.PING`: not believed. */
interface ByeRefusedEvent {
  tool: string;
  instanceId: string;
}

/** A hello whose instance did not confirm it with a matching INFO: nothing was listed. */
interface HelloUnconfirmedEvent {
  tool: string;
  instanceId: string;
  reason: string;
}

/**
 * A confirmed spec the registry did not adopt as declared (docs/adr/0007): a known instance
 * that now claims another spec (it keeps its first), or a new instance whose spec would lower
 * the safety settings trusted for its tool (they stay until the brain restarts). Snake case:
 * it becomes the `registry.spec_changed` audit payload as is.
 */
export interface SpecChangedEvent {
  tool: string;
  /** The instance id that declared the spec. */
  instance: string;
  host: string;
  kind: 'instance_spec_changed' | 'lowers_safety';
  from_version: string;
  to_version: string;
  from_sha256: string;
  to_sha256: string;
  /** Every field that differs, sorted (`annotations.<key>` inside annotations). */
  changes: string[];
  /**
   * The changes that lower safety (hitl, annotations.destructive, input_schema,
   * annotations.readOnly, annotations.openWorld, output_trust, reads_private).
   */
  lowered: SafetyField[];
  lowered_safety: boolean;
  /** False: the registry kept the earlier spec or the stricter settings. */
  adopted: boolean;
}

export interface RegistryEvents {
  instance_added: [InstanceAddedEvent];
  spec_changed: [SpecChangedEvent];
  instance_removed: [InstanceRemovedEvent];
  sweep: [SweepEvent];
  bye_refused: [ByeRefusedEvent];
  hello_unconfirmed: [HelloUnconfirmedEvent];
}
