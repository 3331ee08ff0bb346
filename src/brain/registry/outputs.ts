import type { Bye, Hello } from '../../protocol/index.js';
import type { RegistryEvents } from './events.js';
import type { HintCheckPlan } from './hint-check.js';

/**
 * What the registry's state machine (`RegistryMachine`) answers to its inputs: reports of
 * what changed, which the `Registry` shell logs and emits in order, and commands, which it
 * carries out on the bus and answers with the matching input (docs/adr/0008).
 */

/** One moment, read from the shell's two clocks. */
export interface Instant {
  /** Monotonic ms (`performance.now()`): last seen, sweep starts, tombstone expiry. */
  readonly mono: number;
  /** Epoch ms (`Date.now()`): recorded as an instance's `addedAt`. */
  readonly wall: number;
}

type EventReport<K extends keyof RegistryEvents> = {
  readonly type: K;
  readonly event: RegistryEvents[K][0];
};

/** Something that happened, to log and (when it carries an `event`) to emit as is. */
export type Report =
  | EventReport<'instance_added'>
  | EventReport<'instance_removed'>
  | EventReport<'spec_changed'>
  | EventReport<'bye_refused'>
  | EventReport<'sweep'>
  | (EventReport<'hello_unconfirmed'> & { readonly hello: Hello })
  /** A hello whose service is not its tool's: dropped without asking anyone. */
  | { readonly type: 'hello_ignored'; readonly hello: Hello }
  /** A CAESAR answer to the sweep that failed validation. */
  | { readonly type: 'invalid_info'; readonly reason: string }
  /** A sweep hint its instance did not confirm on its own subject. */
  | { readonly type: 'hint_unconfirmed'; readonly reason: string };

/** I/O the machine asks for; the shell answers with the input named. */
type Command =
  /** `$SRV.INFO.<service>.<id>` of the hello's instance; answer with `helloChecked`. */
  | { readonly type: 'confirm_hello'; readonly hello: Hello }
  /** `$SRV.PING.<service>.<id>` of the bye's instance; answer with `byeChecked`. */
  | { readonly type: 'ping_bye'; readonly bye: Bye }
  /** A sweep that finds instances but charges no misses (after a reconnect). */
  | { readonly type: 'discovery_sweep' };

export type Output = Report | Command;

/** The answer of an instance's own `$SRV.PING` to a bye: a failed request takes the bye. */
export type ByeCheck = 'answered' | 'silent' | 'failed';

/** What a sweep must remember from its start. */
export interface SweepTicket {
  readonly seq: number;
  /** Monotonic ms when the sweep asked. */
  readonly startedAt: number;
  /** The connection epoch when it asked: a sweep that spans a change counts no misses. */
  readonly epoch: number;
  readonly countMisses: boolean;
}

/** The checks a sweep's answers earned, with the figures its event reports. */
export interface SweepPlan extends HintCheckPlan {
  readonly ticket: SweepTicket;
  /** Valid CAESAR answers to the generic `$SRV.INFO` (hints), tombstoned ones included. */
  readonly replies: number;
  /** CAESAR answers that failed validation, one line each. */
  readonly invalid: readonly string[];
}
