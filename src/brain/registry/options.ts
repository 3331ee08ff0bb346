import type { NatsConnection } from '@nats-io/nats-core';
import { silentLogger, type Logger } from '../../log/index.js';

export interface RegistryOptions {
  /** A connected client; the caller owns it (the registry never closes it). */
  nc: NatsConnection;
  logger?: Logger;
  /** Time between `$SRV.INFO` sweeps. @default 5000 */
  sweepIntervalMs?: number;
  /**
   * How long one sweep gathers INFO replies; must be shorter than the interval.
   * @default half the interval, at most 1000
   */
  sweepWindowMs?: number;
  /** Consecutive sweeps an instance may miss before it is dropped. @default 2 */
  maxMissedSweeps?: number;
  /** Timeout of the INFO request sent to an instance that said hello. @default 1000 */
  infoTimeoutMs?: number;
  /**
   * Tools expected at start (the brain's `brain.trusted_workers`: under `caesar up`, every tool
   * of the stack): the first sweep ends once an instance of each has answered, plus
   * `firstSweepGraceMs` for the other actions of the same worker, instead of 300 ms after
   * the last answer. A tool named here that does not answer only leaves the first sweep to
   * its usual end. A tool's name stands for all its actions (ADR 0092). @default none
   */
  expectedTools?: readonly string[];
  /** @default 50 */
  firstSweepGraceMs?: number;
}

export interface RegistrySettings {
  readonly nc: NatsConnection;
  readonly logger: Logger;
  readonly sweepIntervalMs: number;
  readonly sweepWindowMs: number;
  readonly maxMissedSweeps: number;
  readonly infoTimeoutMs: number;
  readonly expectedTools: readonly string[];
  readonly firstSweepGraceMs: number;
  /**
   * How long a bye keeps an instance out: covers INFO replies still in flight while it
   * shuts down, then expires (instance ids are never reused, so this only bounds memory).
   */
  readonly tombstoneMs: number;
}

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`registry option ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function nonNegativeInt(name: string, value: number): number {
  return value === 0 ? 0 : positiveInt(name, value);
}

/** Applies defaults and checks ranges; the result is frozen. */
export function normaliseRegistryOptions(options: RegistryOptions): RegistrySettings {
  const sweepIntervalMs = positiveInt('sweepIntervalMs', options.sweepIntervalMs ?? 5000);
  const sweepWindowMs = positiveInt(
    'sweepWindowMs',
    options.sweepWindowMs ?? Math.max(1, Math.min(1000, Math.floor(sweepIntervalMs / 2))),
  );
  if (sweepWindowMs >= sweepIntervalMs) {
    throw new RangeError(
      `registry option sweepWindowMs (${sweepWindowMs}) must be shorter than sweepIntervalMs (${sweepIntervalMs})`,
    );
  }
  return Object.freeze({
    nc: options.nc,
    logger: options.logger ?? silentLogger(),
    sweepIntervalMs,
    sweepWindowMs,
    maxMissedSweeps: positiveInt('maxMissedSweeps', options.maxMissedSweeps ?? 2),
    infoTimeoutMs: positiveInt('infoTimeoutMs', options.infoTimeoutMs ?? 1000),
    expectedTools: Object.freeze([...(options.expectedTools ?? [])]),
    firstSweepGraceMs: nonNegativeInt('firstSweepGraceMs', options.firstSweepGraceMs ?? 50),
    tombstoneMs: Math.max(2 * sweepIntervalMs, 2000),
  });
}
