import { z } from 'zod';
import { readMetadataJson } from './metadata-json.js';

/**
 * What the host serving an instance has (issue 31, ADR 0091), as the worker declares it in its
 * discovery metadata under `caesar.capacity` (`SRV_METADATA.capacity`): compact JSON
 * `{"vcpus":8,"memory_gb":31.2,"gpus":[{"kind":"cuda","count":2}]}`. `gpus` lists what was
 * found cheaply (`[]`: none found, which is not proof there is none). A worker of a version
 * before it declares nothing and stays valid.
 */

/** Longest `caesar.capacity` value read: the compact JSON is under 200 characters. */
const MAX_CAPACITY_CHARS = 1024;
/** Kinds of GPU one value may list. */
const MAX_GPU_KINDS = 8;

const GpuFoundSchema = z.strictObject({
  /** `cuda`, `rocm`, ... (the words of a spec's `gpu.kind`). */
  kind: z.string().regex(/^[a-z0-9_-]{1,32}$/),
  count: z.number().int().min(1).max(1024),
});

export const HostCapacitySchema = z.strictObject({
  /** `os.availableParallelism()`: the vCPUs this process may use. */
  vcpus: z.number().int().min(1).max(65_536),
  /** Total memory, GB (2^30 bytes), one decimal. */
  memory_gb: z.number().min(0).max(1_048_576),
  gpus: z.array(GpuFoundSchema).max(MAX_GPU_KINDS),
});
export type HostCapacity = z.infer<typeof HostCapacitySchema>;

/** The metadata value: compact JSON in a fixed key order. */
export function encodeHostCapacity(capacity: HostCapacity): string {
  const { vcpus, memory_gb, gpus } = HostCapacitySchema.parse(capacity);
  return JSON.stringify({
    vcpus,
    memory_gb,
    gpus: gpus.map(({ kind, count }) => ({ kind, count })),
  });
}

/** Reads a `caesar.capacity` value as an instance declared it, or why it is not one. */
export function parseHostCapacity(
  text: string,
): { ok: true; value: HostCapacity } | { ok: false; problem: string } {
  return readMetadataJson(text, MAX_CAPACITY_CHARS, HostCapacitySchema);
}
