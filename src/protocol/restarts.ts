import { z } from 'zod';
import { readMetadataJson } from './metadata-json.js';
import { MAX_RESTART_COUNT, WORKER_RESTART_REASONS } from './restart-reasons.js';

/**
 * An instance's restarts under `caesar up` (ADR 0070), as the worker declares them in its
 * discovery metadata under `caesar.restarts` (`SRV_METADATA.restarts`): compact JSON
 * `{"count":3,"last_reason":"unresponsive","last_at":"2026-12-04T10:00:00.000Z"}`, absent on
 * a first start. The supervisor passes them to the restarted worker as
 * `caesar legion serve-tool --restart-count/--restart-reason/--restart-at`.
 */

/** Longest `caesar.restarts` value read: the compact JSON is under 120 characters. */
const MAX_RESTARTS_CHARS = 512;

export const WorkerRestartsSchema = z.strictObject({
  /** Restarts of this worker since `caesar up` started, the latest included. */
  count: z.number().int().min(1).max(MAX_RESTART_COUNT),
  last_reason: z.enum(WORKER_RESTART_REASONS),
  /** When the process before this one ended, ISO-8601 UTC. */
  last_at: z.iso.datetime(),
});
export type WorkerRestarts = z.infer<typeof WorkerRestartsSchema>;

/** The metadata value: compact JSON in a fixed key order. */
export function encodeWorkerRestarts(restarts: WorkerRestarts): string {
  const { count, last_reason, last_at } = WorkerRestartsSchema.parse(restarts);
  return JSON.stringify({ count, last_reason, last_at });
}

/**
 * Reads a `caesar.restarts` value as an instance declared it: the restarts, or why the
 * value is not one (too long, not JSON, or the fields at fault). The caller ignores a bad
 * value: it never makes an instance invalid.
 */
export function parseWorkerRestarts(
  text: string,
): { ok: true; value: WorkerRestarts } | { ok: false; problem: string } {
  return readMetadataJson(text, MAX_RESTARTS_CHARS, WorkerRestartsSchema);
}
